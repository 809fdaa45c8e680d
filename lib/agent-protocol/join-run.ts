import { isTerminalStatus } from "@/lib/contract/task";
import { ApiError } from "@/lib/errors/api-error";
import { sleep } from "@/lib/util/sleep";
import { loadRun } from "./get-run";
import { getThreadState } from "./get-thread-state";

/** A waiting join re-reads the run this often; joins are for scripts, the feed is for people. */
const JOIN_POLL_MS = 1_000;
const JOIN_MAX_MS = 10 * 60_000;
/** Open joins per account in this process: each one costs a query a second. */
const MAX_JOINS_PER_ACCOUNT = 10;
const open = new Map<string, number>();

/**
 * `runs.join`: waits until the run is over (its task terminal, or taken over by
 * a later run), then answers the thread's values. Bounded in time and in
 * concurrent waits per account; the caller's disconnect ends the wait.
 */
export async function joinRun(ownerId: string, threadId: string, runId: string, signal: AbortSignal) {
  const n = open.get(ownerId) ?? 0;
  if (n >= MAX_JOINS_PER_ACCOUNT)
    throw new ApiError(
      "rate_limited",
      `At most ${MAX_JOINS_PER_ACCOUNT} runs can be joined at once; poll the run instead`,
      undefined,
      5,
    );
  open.set(ownerId, n + 1);
  try {
    const deadline = Date.now() + JOIN_MAX_MS;
    for (;;) {
      const { task, superseded } = await loadRun(ownerId, threadId, runId);
      if (superseded || isTerminalStatus(task.status) || task.status === "input_required") break;
      if (Date.now() > deadline)
        throw new ApiError("unavailable", "The run is still going; join again or poll it", undefined, 5);
      await sleep(JOIN_POLL_MS, signal);
    }
    return (await getThreadState(ownerId, threadId)).values;
  } finally {
    const left = (open.get(ownerId) ?? 1) - 1;
    if (left === 0) open.delete(ownerId);
    else open.set(ownerId, left);
  }
}
