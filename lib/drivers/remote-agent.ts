import { Client, type Run, type Thread } from "@langchain/langgraph-sdk";
import { z } from "zod";
import type { Task } from "@/lib/db/generated/client.ts";
import { DriverProtocolError } from "@/lib/errors/protocol";
import type { Driver, StepOutcome, SubmitResult, TerminalSnapshot } from "./types";
import { boundBody, hide } from "./mcp-content";
import { withPollMs } from "./poll-ms";
import { RELAY_MIN_INTERVAL_MS, relayRun } from "./remote-agent-stream";
import { log } from "@/lib/util/log";
import { readJsonColumn } from "@/lib/util/json-column";
import { testHooks } from "@/lib/util/test-hooks";

/**
 * A remote agent over the Agent Protocol as LangGraph Platform serves it
 * (threads and thread-scoped runs; what deepagents' async subagents use).
 *
 * One Herald task is one remote thread (`task.remoteRef`). The thread carries
 * `herald_task_id` in its metadata: the launch intent (the task row in
 * `submitted`) is committed before anything is sent, and a submit looks the
 * thread and its runs up by that key before creating either, so a worker that
 * dies between the remote create and the stored handle leaves work the next
 * claim adopts instead of a second remote run.
 *
 * The task's current run is the thread's newest: an update is a new run with
 * `multitask_strategy: "interrupt"` (the earlier run ends `interrupted`, its
 * history stays on the thread) and an answer is a new run resuming the
 * interrupt, so nothing but the thread id needs storing. Updates carry a
 * sequence number in their run metadata (`driverData.updatesSent` counts the
 * committed ones) so a retried update adopts the run it already created.
 */
export interface AgentDriverConfig {
  name: string;
  url: string;
  assistantId: string;
  headers: Record<string, string>;
  /** The remote's own limit on a run as the operator knows it (LangGraph servers do not publish it); shown in the sheet. */
  runTimeoutSeconds?: number;
}

const CALL_TIMEOUT_MS = 10_000;
const RUNNING_POLL_MS = 1_000;
/** Long runs are polled less often; an update or an answer still waits at most this long. */
const MAX_RUNNING_POLL_MS = 10_000;
/** Waiting for input changes only when the user answers, which wakes the task at once. */
const INPUT_POLL_MS = 30_000;
const MAX_QUESTION_CHARS = 4_000;
const MAX_REMOTE_ID_CHARS = 255;
const RUN_PAGE = 100;
const KEY = "herald_task_id";
const UPDATE_KEY = "herald_update";
/** What runs publish to their stream: the state (the default) and the graph's own progress lines (relayed). */
const STREAM_MODES: ("values" | "custom")[] = ["values", "custom"];

// Error text reaches the log through publicError; still, no agent name, url or id in it.
const label = "the remote agent";

/** An HTTP status the SDK attached to a failed call, if any. */
function httpStatus(err: unknown): number | null {
  const s = (err as { status?: unknown } | null)?.status;
  return typeof s === "number" ? s : null;
}

/** A 4xx other than timeouts, throttling, conflicts and auth: the request itself is wrong, retrying cannot help. */
function refused(err: unknown): boolean {
  const s = httpStatus(err);
  return s !== null && s >= 400 && s < 500 && ![401, 403, 408, 409, 422, 425, 429].includes(s);
}

/** 409/422: the thread is busy with a run (the dev server answers 422, the spec 409). */
const busy = (err: unknown) => httpStatus(err) === 409 || httpStatus(err) === 422;

type Message = { type?: unknown; role?: unknown; content?: unknown };

/**
 * The published body: the thread state's last message, if it is the agent's
 * reply with text in it. Anything else is a broken contract (the task fails
 * with a bounded error), never an empty publication.
 */
export function finalReply(values: unknown): { ok: true; text: string } | { ok: false; error: string } {
  const messages = (values as { messages?: unknown } | null)?.messages;
  if (!Array.isArray(messages) || messages.length === 0)
    return { ok: false, error: `${label} finished without any message` };
  const last = messages[messages.length - 1] as Message | null;
  const kind = last?.type ?? last?.role;
  if (kind !== "ai" && kind !== "assistant")
    return { ok: false, error: `${label} finished without a reply (its last message is not the agent's)` };
  const content = last?.content;
  let text = "";
  if (typeof content === "string") text = content;
  else if (Array.isArray(content)) {
    text = content
      .flatMap((p: unknown) =>
        typeof p === "string"
          ? [p]
          : (p as { type?: unknown })?.type === "text" && typeof (p as { text?: unknown }).text === "string"
            ? [(p as { text: string }).text]
            : [],
      )
      .join("\n\n");
    if (!text.trim())
      return { ok: false, error: `${label} replied without text (only ${content.length} non-text part(s))` };
  } else return { ok: false, error: `${label} replied with content Herald cannot read` };
  if (!text.trim()) return { ok: false, error: `${label} replied with an empty message` };
  return { ok: true, text: boundBody(text.trim()) };
}

/** The question of an interrupted thread: the first interrupt's value, as text. */
export function questionOf(interrupts: unknown): { question: string } {
  const all =
    interrupts && typeof interrupts === "object" ? Object.values(interrupts as Record<string, unknown>).flat() : [];
  const value = (all[0] as { value?: unknown } | undefined)?.value;
  const q =
    typeof value === "string"
      ? value
      : typeof (value as { question?: unknown })?.question === "string"
        ? (value as { question: string }).question
        : value === undefined
          ? ""
          : JSON.stringify(value);
  return { question: (q.trim() || "The remote agent is waiting for input.").slice(0, MAX_QUESTION_CHARS) };
}

/** Run status → what the task reports (docs/architecture.md#drivers). */
export function runOutcome(status: string): "active" | "done" | "failed" | "timeout" | "interrupted" {
  switch (status) {
    case "pending":
    case "running":
      return "active";
    case "success":
      return "done";
    case "error":
      return "failed";
    case "timeout":
      return "timeout";
    case "interrupted":
      return "interrupted";
    default:
      throw new DriverProtocolError(`${label} reported an unknown run status "${status.slice(0, 50)}"`);
  }
}

/** A twentieth of the run's age, within 1–10 s: short runs end promptly, long ones are not polled every second. */
export function runningPollMs(run: { created_at?: unknown }, now = Date.now()): number {
  const age = now - (Date.parse(String(run.created_at)) || now);
  return Math.min(MAX_RUNNING_POLL_MS, Math.max(RUNNING_POLL_MS, Math.round(age / 20)));
}

/** task.driverData of a remote agent's task: what submit wrote, then what polls keep (lib/drivers/poll-ms.ts keeps its own). */
const agentDataSchema = z.object({
  agent: z.string().optional(),
  remoteTtlMs: z.number().optional(),
  /** Instructions sent to the thread so far: the next one's sequence number follows it. */
  updatesSent: z.number().int().min(0).optional(),
  /** false: the remote serves no run stream, so polls do not try it again. */
  stream: z.boolean().optional(),
  /** When (ms since the epoch) the last streamed line was shown as progress. */
  relayedAt: z.number().optional(),
});
type AgentData = z.infer<typeof agentDataSchema>;

const agentDataOf = (task: Task): AgentData =>
  readJsonColumn("task.driverData (agent)", agentDataSchema, task.driverData, {}, task.id);

const updatesSent = (task: Task) => agentDataOf(task).updatesSent ?? 0;

/** One configured remote agent as every call for it sees it. */
interface RemoteAgent {
  config: AgentDriverConfig;
  client: Client;
}

export function createAgentDriver(config: AgentDriverConfig): Driver {
  const agent: RemoteAgent = {
    config,
    client: new Client({
      apiUrl: config.url,
      // Never from LANGSMITH_API_KEY and friends: only what the operator configured for this agent.
      apiKey: null,
      defaultHeaders: config.headers,
      timeoutMs: CALL_TIMEOUT_MS,
      // The executor retries with backoff and the degraded flag; the SDK must not hide failures behind its own.
      callerOptions: { maxRetries: 0 },
    }),
  };
  return {
    acceptsUpdates: true,
    findsUnstoredWork: true,
    reportsStart: true,
    maxConsecutiveErrors: Infinity,
    submit: (task, signal) => submitRemote(agent, task, signal),
    async step({ task, pendingUpdates, signal }) {
      const threadId = threadOf(task);
      try {
        const o = withPollMs(task, await poll(agent, task, pendingUpdates, threadId, signal));
        return {
          ...o,
          error: hide(o.error, threadId),
          inputRequest: hide(o.inputRequest, threadId),
          publish: hide(o.publish, threadId),
        };
      } catch (err) {
        throw hide(err, threadId);
      }
    },
    async cancel(task, signal) {
      // No stored handle: a submit may still have reached the remote before its worker died.
      const threadId = task.remoteRef ?? (await findThread(agent, task.id, signal))?.thread_id;
      if (!threadId) return { status: "cancelled" };
      try {
        const snapshot = hide(await cancelRemote(agent, threadId, signal), threadId);
        // Herald never saw the result of work it has no handle for: the user's cancel stands.
        return task.remoteRef ? snapshot : { status: "cancelled" };
      } catch (err) {
        throw hide(err, threadId);
      }
    },
    async answer(task, response, signal) {
      const threadId = threadOf(task);
      try {
        await answerRemote(agent, task, threadId, response, signal);
      } catch (err) {
        throw hide(err, threadId);
      }
    },
  };
}

async function call<T>(what: string, fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (err) {
    if (!refused(err)) throw err;
    // Keeps the status: a 404 means "gone" to the callers that expect one (poll, cancel).
    throw Object.assign(
      new DriverProtocolError(`${label} refused ${what}: ${String((err as Error).message).slice(0, 500)}`),
      { status: httpStatus(err) },
    );
  }
}

function threadOf(task: Task): string {
  if (!task.remoteRef) throw new DriverProtocolError("the task has no remote thread");
  return task.remoteRef;
}

/**
 * The thread's newest run. The order of `runs.list` is not part of the
 * protocol (the Platform sorts newest first, `langgraphjs dev` oldest
 * first), so one page is read and sorted here; a task has one run per
 * submit, update and answer, far fewer than a page.
 */
async function newestRun({ client }: RemoteAgent, threadId: string, signal: AbortSignal): Promise<Run | null> {
  const runs = await call("runs.list", () => client.runs.list(threadId, { limit: RUN_PAGE, signal }));
  if (!Array.isArray(runs)) throw new DriverProtocolError(`${label} sent a malformed run list`);
  for (const run of runs) {
    if (typeof run?.run_id !== "string" || typeof run.status !== "string")
      throw new DriverProtocolError(`${label} sent a malformed run`);
  }
  const at = (r: Run) => Date.parse(String(r.created_at)) || 0;
  // Same instant: run ids the server issues are time-ordered (UUIDv7 on both servers).
  const newer = (a: Run, b: Run) => at(a) > at(b) || (at(a) === at(b) && a.run_id > b.run_id);
  return runs.reduce<Run | null>((best, r) => (best === null || newer(r, best) ? r : best), null);
}

async function findThread({ client }: RemoteAgent, taskId: string, signal: AbortSignal): Promise<Thread | null> {
  const found = await call("threads.search", () =>
    client.threads.search({ metadata: { [KEY]: taskId }, limit: 2, signal }),
  );
  if (!Array.isArray(found)) throw new DriverProtocolError(`${label} sent a malformed thread list`);
  if (found.length > 1)
    log("agents").error(`${found.length} remote threads carry one Herald task id; adopting the oldest`);
  return found.sort((a, b) => String(a.created_at).localeCompare(String(b.created_at)))[0] ?? null;
}

/** The thread of this task (found by its key, or created) with one run started on it, adopting whatever an earlier attempt left. */
async function submitRemote(agent: RemoteAgent, task: Task, signal: AbortSignal): Promise<SubmitResult> {
  const { client, config } = agent;
  let thread = await findThread(agent, task.id, signal);
  if (!thread) {
    thread = await call("threads.create", () => client.threads.create({ metadata: { [KEY]: task.id }, signal }));
  }
  const threadId = thread?.thread_id;
  if (typeof threadId !== "string" || !threadId || threadId.length > MAX_REMOTE_ID_CHARS)
    throw new DriverProtocolError(`${label} returned an unusable thread id`);
  if (!(await newestRun(agent, threadId, signal))) {
    try {
      await call("runs.create", () =>
        client.runs.create(threadId, config.assistantId, {
          input: { messages: [{ role: "user", content: task.prompt }] },
          metadata: { [KEY]: task.id },
          multitaskStrategy: "reject",
          streamMode: STREAM_MODES,
          signal,
        }),
      );
    } catch (err) {
      // Another submit of this task got there first: adopt its run.
      if (!busy(err) || !(await newestRun(agent, threadId, signal))) throw err;
    }
    await testHooks().afterRemoteCreate?.(task.id);
  }
  return {
    remoteRef: threadId,
    driverData: {
      agent: config.name,
      ...(config.runTimeoutSeconds ? { remoteTtlMs: config.runTimeoutSeconds * 1000 } : {}),
    },
  };
}

async function poll(
  agent: RemoteAgent,
  task: Task,
  pending: string[],
  threadId: string,
  signal: AbortSignal,
): Promise<StepOutcome> {
  if (pending.length > 0) return sendUpdates(agent, task, threadId, pending, signal);
  let run: Run | null;
  try {
    run = await newestRun(agent, threadId, signal);
  } catch (err) {
    if (httpStatus(err) === 404) return { status: "failed", error: `${label} no longer knows this task's thread` };
    throw err;
  }
  // The thread exists but its run does not (a remote restart lost it): it will not come back.
  if (!run) return { status: "failed", error: `${label} has no run for this task` };
  switch (runOutcome(run.status)) {
    case "active":
      return run.status === "running"
        ? relay(agent, task, threadId, run, signal)
        : { status: "queued", pollAfterMs: runningPollMs(run) };
    case "failed":
      return {
        status: "failed",
        error: `${label} reported that its run failed${await failureDetail(agent, threadId, signal)}`,
      };
    case "timeout":
      return { status: "failed", error: `${label} stopped its run at the remote's own time limit (timeout)` };
    case "interrupted":
      // Herald interrupts only runs it replaced, and polls the newest: someone else stopped this one.
      return { status: "failed", error: `${label} reports the run as interrupted by someone other than Herald` };
    case "done":
      return finished(agent, threadId, signal);
  }
}

/**
 * A running run: its stream is watched for a moment (lib/drivers/remote-agent-stream.ts)
 * when the remote serves one, and the newest line becomes a progress
 * message at most every RELAY_MIN_INTERVAL_MS; plain polling otherwise.
 */
async function relay(
  { client }: RemoteAgent,
  task: Task,
  threadId: string,
  run: Run,
  signal: AbortSignal,
): Promise<StepOutcome> {
  const base: StepOutcome = { status: "running", pollAfterMs: runningPollMs(run) };
  const data = agentDataOf(task);
  if (data.stream === false) return base;
  const r = await relayRun(client, threadId, run.run_id, signal);
  if (r === "unsupported") return { ...base, driverState: { stream: false } };
  // The stream ended: the run is finishing, so look again at once.
  const next = r.ended ? { pollAfterMs: RUNNING_POLL_MS } : {};
  const last = data.relayedAt ?? 0;
  if (!r.line || r.line === task.progressText || Date.now() - last < RELAY_MIN_INTERVAL_MS) return { ...base, ...next };
  return { ...base, ...next, progress: r.line, driverState: { relayedAt: Date.now() } };
}

/**
 * The graph's own error, for the server log (the task stores only a
 * category). Best effort: the run failed either way.
 */
async function failureDetail({ client }: RemoteAgent, threadId: string, signal: AbortSignal): Promise<string> {
  try {
    const state = await client.threads.getState(threadId, undefined, { signal });
    const error = (state?.tasks ?? []).map((t) => t?.error).find((e) => e !== null && e !== undefined);
    return error === undefined ? "" : `: ${(typeof error === "string" ? error : JSON.stringify(error)).slice(0, 500)}`;
  } catch {
    return "";
  }
}

async function finished({ client }: RemoteAgent, threadId: string, signal: AbortSignal): Promise<StepOutcome> {
  const thread = await call("threads.get", () => client.threads.get(threadId, { signal }));
  // A graph that called interrupt() ends its run "success" and leaves the thread waiting.
  if (thread.status === "interrupted")
    return { status: "input_required", inputRequest: questionOf(thread.interrupts), pollAfterMs: INPUT_POLL_MS };
  const state = await call("threads.getState", () => client.threads.getState(threadId, undefined, { signal }));
  const reply = finalReply(state?.values);
  if (!reply.ok) throw new DriverProtocolError(reply.error);
  return { publish: { partial: false, content: reply.text }, finished: true };
}

async function sendUpdates(
  agent: RemoteAgent,
  task: Task,
  threadId: string,
  pending: string[],
  signal: AbortSignal,
): Promise<StepOutcome> {
  const { client, config } = agent;
  const seq = updatesSent(task) + 1;
  const newest = await newestRun(agent, threadId, signal);
  // A retried step: the run this update created is already there.
  if ((newest?.metadata as Record<string, unknown> | undefined)?.[UPDATE_KEY] !== seq) {
    const run = await call("runs.create", () =>
      client.runs.create(threadId, config.assistantId, {
        input: { messages: pending.map((content) => ({ role: "user", content })) },
        metadata: { [KEY]: task.id, [UPDATE_KEY]: seq },
        multitaskStrategy: "interrupt",
        streamMode: STREAM_MODES,
        signal,
      }),
    );
    if (typeof run?.run_id !== "string") throw new DriverProtocolError(`${label} sent a malformed run`);
  }
  return {
    status: "running",
    consumedUpdates: pending.length,
    driverState: { updatesSent: seq },
    pollAfterMs: RUNNING_POLL_MS,
  };
}

async function cancelRemote(agent: RemoteAgent, threadId: string, signal: AbortSignal): Promise<TerminalSnapshot> {
  const { client } = agent;
  let run: Run | null;
  try {
    run = await newestRun(agent, threadId, signal);
  } catch (err) {
    // Gone entirely: nothing is left running.
    if (httpStatus(err) === 404) return { status: "cancelled" };
    throw err;
  }
  if (!run) return { status: "cancelled" };
  if (runOutcome(run.status) === "active") {
    const runId = run.run_id;
    await call("runs.cancel", () => client.runs.cancel(threadId, runId, true, "interrupt", { signal }));
    run = await call("runs.get", () => client.runs.get(threadId, runId, { signal }));
  }
  switch (runOutcome(run.status)) {
    case "active":
      // Accepted but still winding down: ask again later (the cancel loop retries with backoff).
      throw new Error(`${label} still reports the run as ${run.status} after runs.cancel`);
    case "interrupted":
      return { status: "cancelled" };
    case "failed":
      return { status: "failed", error: `${label} reported that its run failed` };
    case "timeout":
      return { status: "failed", error: `${label} stopped its run at the remote's own time limit (timeout)` };
    case "done": {
      // Waiting for an answer is not finished: nothing runs, so the cancel stands.
      const thread = await call("threads.get", () => client.threads.get(threadId, { signal }));
      return thread.status === "interrupted" ? { status: "cancelled" } : { status: "succeeded" };
    }
  }
}

/** The answer resumes the thread's interrupt as a new run. */
async function answerRemote(
  { client, config }: RemoteAgent,
  task: Task,
  threadId: string,
  response: string,
  signal: AbortSignal,
): Promise<void> {
  const thread = await call("threads.get", () => client.threads.get(threadId, { signal }));
  // The remote moved on (an earlier attempt of this answer already resumed it): the next poll reports where it is.
  if (thread.status !== "interrupted") return;
  await call("runs.create", () =>
    client.runs.create(threadId, config.assistantId, {
      command: { resume: response },
      metadata: { [KEY]: task.id },
      multitaskStrategy: "reject",
      streamMode: STREAM_MODES,
      signal,
    }),
  );
}
