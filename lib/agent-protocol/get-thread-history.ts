import type { ApThreadState } from "@/lib/contract/ap";
import { stateAt, threadSteps } from "./get-thread-state";
import { ownThread } from "./thread-access";

export const HISTORY_DEFAULT_LIMIT = 10;

/**
 * `threads.getHistory`: the thread's states newest first, one per checkpoint
 * (a run's input, a finished report), rebuilt from durable rows each time.
 * `before` is a checkpoint id from an earlier page; an unknown one pages
 * nothing rather than starting over.
 */
export async function getThreadHistory(
  ownerId: string,
  threadId: string,
  q: { limit?: number; before?: string | { configurable?: { checkpoint_id?: string } } | null },
): Promise<ApThreadState[]> {
  const c = await ownThread(ownerId, threadId);
  const steps = await threadSteps(ownerId, threadId);
  const before = typeof q.before === "string" ? q.before : q.before?.configurable?.checkpoint_id;
  let end = steps.length;
  if (before) {
    end = steps.findIndex((s) => s.id === before);
    if (end < 0) return [];
  }
  const limit = q.limit ?? HISTORY_DEFAULT_LIMIT;
  const out: ApThreadState[] = [];
  for (let i = end - 1; i >= 0 && out.length < limit; i--) out.push(stateAt(threadId, steps, i, c.createdAt));
  return out;
}
