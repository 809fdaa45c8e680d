import {
  CallToolResultSchema,
  CreateTaskResultSchema,
  ErrorCode,
  type CallToolResult,
  type GetTaskResult,
} from "@modelcontextprotocol/sdk/types.js";
import type { Task } from "@/lib/db/generated/client.ts";
import { DriverProtocolError } from "@/lib/errors/protocol";
import type { Driver, RemoteListing, StepOutcome, SubmitResult, TerminalSnapshot } from "./types";
import { boundBody, elicitContent, hide, isServerError, pollAfter, resultText } from "./mcp-content";
import {
  createSessions,
  label,
  sessionGone,
  type McpSessions,
  type Question,
  type RpcFn,
  type SessionRef,
} from "./mcp-session";
import { withPollMs } from "./poll-ms";
import { testHooks } from "@/lib/util/test-hooks";
import { readJsonColumn } from "@/lib/util/json-column";
import { z } from "zod";

/**
 * Remote research through MCP Tasks (spec 2025-11-25, SDK experimental API):
 * a task-capable tool call creates a remote task, each claim is one
 * `tasks/get`, the result is fetched with `tasks/result` once the task is
 * completed, and cancel is `tasks/cancel`.
 *
 * Durability (docs/architecture.md#drivers): the task stores the MCP session
 * that created it and its protocol version (`driverData.session`,
 * `driverData.protocol`), and every later call goes over that session, so a
 * server that binds tasks to sessions keeps answering any worker. A question
 * (`elicitation/create`) is delivered once, on the stream of a `tasks/result`
 * call over that session; its JSON-RPC id is stored with the poll that saw it
 * (`driverData.question`), and the user's answer is a JSON-RPC response to
 * that id sent over the same session by whichever worker claims it — the
 * worker that received the question may be long dead. If the server lost the
 * session (restart) or the question was delivered to a worker that died before
 * storing its id, 2025-11-25 offers no way to ask again: the task fails saying
 * so. (SEP-2663 `tasks/update` lifts this; SDK 1.32 does not implement it.)
 *
 * A worker that dies between the remote create and the stored handle leaves a
 * remote task nothing tracks: 2025-11-25 has no idempotency key, so the next
 * claim creates the task again and the orphan reaper (lib/runtime/reap-orphans.ts)
 * cancels the untracked one it finds through `tasks/list` (`listRemote`).
 */
export interface McpDriverConfig {
  name: string;
  url: string;
  tool: string;
  headers?: Record<string, string>;
  /** False: this server's `tasks/list` also shows tasks Herald did not create; the reaper leaves it alone. */
  reapOrphans?: boolean;
}

export type McpDriver = Driver & {
  /** Drops the connections (tests; workers keep them for the life of the process). */
  close(): Promise<void>;
};

/** Waiting for input changes only when the user answers, which wakes the task at once. */
const INPUT_POLL_MS = 30_000;
/** A queued question arrives within milliseconds of `tasks/result`; this only bounds a silent server. */
const QUESTION_WAIT_MS = 3_000;
/** Asked of the server; it may keep the task for less, and a task it forgot ends `failed`. */
const REMOTE_TTL_MS = 7 * 24 * 3_600_000;
const MAX_ERROR_CHARS = 4_000;
const MAX_PROGRESS_CHARS = 1_000;
const MAX_REMOTE_ID_CHARS = 255;
/** Pages of `tasks/list` one reaper pass reads per server. */
const MAX_LIST_PAGES = 20;
/** input_required without a delivered question: looked for this many times at this pace before the slow input pace. */
const QUESTION_FAST_LOOKS = 6;
const QUESTION_LOOK_MS = 2_000;
/** A question not yet delivered on a poll may still be on its way: retry this often before giving up. */
const QUESTION_RETRIES = 3;

/** task.driverData of an MCP task: what submit wrote, then what polls keep (lib/drivers/poll-ms.ts keeps its own). */
const mcpDataSchema = z.object({
  server: z.string().optional(),
  /** The session that created the remote task and its protocol version: every later call goes over it. */
  session: z.string().optional(),
  protocol: z.string().optional(),
  remoteTtlMs: z.number().optional(),
  /** The JSON-RPC id of the question a worker received (null once answered or moved on): any worker answers it. */
  question: z
    .object({ requestId: z.union([z.string(), z.number()]) })
    .nullable()
    .optional(),
  /** Polls that found input_required without a delivered question. */
  questionWaits: z.number().int().min(0).optional(),
});
type McpData = z.infer<typeof mcpDataSchema>;

const dataOf = (task: Task): McpData =>
  readJsonColumn("task.driverData (mcp)", mcpDataSchema, task.driverData, {}, task.id);

/**
 * task.inputRequest as askUser writes it: the question and, for a form, the fields the server asked for. Loose: the
 * stored request is handed on unchanged when a poll keeps it.
 */
const mcpInputRequestSchema = z.looseObject({
  question: z.string(),
  fields: z
    .looseObject({ properties: z.record(z.string(), z.unknown()).optional(), required: z.array(z.string()).optional() })
    .optional(),
});

const inputRequestOf = (task: Task) =>
  readJsonColumn("task.inputRequest (mcp)", mcpInputRequestSchema.nullable(), task.inputRequest, null, task.id);

function sessionOf(task: Task): SessionRef | null {
  const d = dataOf(task);
  return d.session ? { session: d.session, ...(d.protocol !== undefined ? { protocol: d.protocol } : {}) } : null;
}

function storedQuestionId(task: Task): string | number | null {
  return dataOf(task).question?.requestId ?? null;
}

/** One configured server as every call for it sees it. */
interface McpServer {
  config: McpDriverConfig;
  sessions: McpSessions;
  /**
   * Remote ids this process created, by Herald task id: the loop compensates a
   * failed hand-off with the task row it claimed, which has no remoteRef yet.
   */
  submitted: Map<string, { remoteId: string; ref: SessionRef | null }>;
}

export function createMcpDriver(config: McpDriverConfig): McpDriver {
  const srv: McpServer = { config, sessions: createSessions(config), submitted: new Map() };
  return {
    maxConsecutiveErrors: Infinity,
    submit: (task, signal) => submitRemote(srv, task, signal),
    async step({ task, signal }) {
      const remoteId = remoteIdOf(srv, task);
      try {
        const o = withPollMs(task, await poll(srv, refOf(srv, task), remoteId, task, signal));
        return {
          ...o,
          progress: hide(o.progress, remoteId),
          error: hide(o.error, remoteId),
          inputRequest: hide(o.inputRequest, remoteId),
          publish: hide(o.publish, remoteId),
        };
      } catch (err) {
        throw hide(err, remoteId);
      }
    },
    async cancel(task, signal) {
      const remoteId = task.remoteRef ?? srv.submitted.get(task.id)?.remoteId;
      // Nothing reached the remote: nothing to stop.
      if (!remoteId) return { status: "cancelled" };
      try {
        return hide(await cancelRemote(srv, refOf(srv, task), remoteId, signal), remoteId);
      } catch (err) {
        throw hide(err, remoteId);
      }
    },
    async answer(task, response, signal) {
      const remoteId = remoteIdOf(srv, task);
      try {
        await answerRemote(srv, task, remoteId, response, signal);
      } catch (err) {
        throw hide(err, remoteId);
      }
    },
    listRemote: (signal) => listRemote(srv, signal),
    async cancelUntracked(remoteRef, signal) {
      await cancelRemote(srv, null, remoteRef, signal).catch((err) => {
        // Winding down counts as cancelled: the reaper asked once and will not ask again.
        if (isServerError(err)) throw err;
        if (!(err instanceof Error && err.message.includes("after tasks/cancel"))) throw err;
      });
    },
    async close() {
      await srv.sessions.close();
    },
  };
}

function remember(srv: McpServer, taskId: string, remoteId: string, ref: SessionRef | null) {
  srv.submitted.set(taskId, { remoteId, ref });
  // Only the hand-off window needs it; bound the map for a long-lived worker.
  if (srv.submitted.size > 1_000) srv.submitted.delete(srv.submitted.keys().next().value!);
}

function remoteIdOf(srv: McpServer, task: Task): string {
  const id = task.remoteRef ?? srv.submitted.get(task.id)?.remoteId;
  if (!id) throw new DriverProtocolError("the task has no remote MCP task id");
  return id;
}

function refOf(srv: McpServer, task: Task): SessionRef | null {
  return sessionOf(task) ?? srv.submitted.get(task.id)?.ref ?? null;
}

/**
 * One call for a stored task, over its session. A server that lost the
 * session (restart) may still know the task by id: one retry over this
 * process's own session before the caller decides the task is gone.
 */
async function call<T>(
  srv: McpServer,
  ref: SessionRef | null,
  signal: AbortSignal,
  what: string,
  fn: RpcFn<T>,
): Promise<T> {
  try {
    return await srv.sessions.rpc(ref, signal, what, fn);
  } catch (err) {
    if (!ref || !sessionGone(err)) throw err;
    return srv.sessions.rpc(null, signal, what, fn);
  }
}

async function submitRemote(srv: McpServer, task: Task, signal: AbortSignal): Promise<SubmitResult> {
  const { config, sessions } = srv;
  const created = await sessions
    .rpc(null, signal, "tools/call", (c, o) =>
      c.request(
        { method: "tools/call", params: { name: config.tool, arguments: { prompt: task.prompt, title: task.title } } },
        CreateTaskResultSchema,
        { ...o, task: { ttl: REMOTE_TTL_MS } },
      ),
    )
    .catch((err) => {
      // The server refused the call itself (unknown tool, bad arguments, no task support): retrying cannot help.
      if (isServerError(err) && err.code !== ErrorCode.InternalError)
        throw new DriverProtocolError(`${label} refused the ${config.tool} call: ${err.message}`);
      throw err;
    });
  const id = created.task.taskId;
  if (!id || id.length > MAX_REMOTE_ID_CHARS) throw new DriverProtocolError(`${label} returned an unusable task id`);
  const ref = sessions.freshRef();
  remember(srv, task.id, id, ref);
  await testHooks().afterRemoteCreate?.(task.id);
  const timing = {
    ...(typeof created.task.ttl === "number" ? { remoteTtlMs: created.task.ttl } : {}),
    pollMs: pollAfter(created.task.pollInterval),
  };
  return { remoteRef: id, driverData: { server: config.name, ...(ref ?? {}), ...timing } };
}

async function getTask(
  srv: McpServer,
  ref: SessionRef | null,
  remoteId: string,
  signal: AbortSignal,
): Promise<GetTaskResult> {
  const t = await call(srv, ref, signal, "tasks/get", (c, o) => c.experimental.tasks.getTask(remoteId, o));
  if (t.taskId !== remoteId) throw new DriverProtocolError(`${label} answered tasks/get for another task`);
  return t;
}

/** One fetch of the outcome. */
function fetchResult(
  srv: McpServer,
  ref: SessionRef | null,
  remoteId: string,
  signal: AbortSignal,
): Promise<CallToolResult> {
  return call(srv, ref, signal, "tasks/result", (c, o) =>
    c.experimental.tasks.getTaskResult(remoteId, CallToolResultSchema, o),
  );
}

/** A failed task's own words beat its last status line. */
async function failure(
  srv: McpServer,
  ref: SessionRef | null,
  remote: GetTaskResult,
  signal: AbortSignal,
): Promise<string> {
  let text = "";
  try {
    const result = await fetchResult(srv, ref, remote.taskId, signal);
    text = result.content
      .flatMap((c) => (c.type === "text" ? [c.text] : []))
      .join("\n")
      .trim();
  } catch (err) {
    if (!isServerError(err)) throw err;
  }
  return (text || remote.statusMessage || "The remote task failed.").slice(0, MAX_ERROR_CHARS);
}

async function poll(
  srv: McpServer,
  ref: SessionRef | null,
  remoteId: string,
  task: Task,
  signal: AbortSignal,
): Promise<StepOutcome> {
  let remote: GetTaskResult;
  try {
    remote = await getTask(srv, ref, remoteId, signal);
  } catch (err) {
    // The SDK answers an unknown task with InvalidParams: expired (ttl) or lost in a server restart.
    if (isServerError(err) && err.code === ErrorCode.InvalidParams) {
      return { status: "failed", error: `${label} no longer knows this task (${err.message.slice(0, 300)})` };
    }
    throw err;
  }
  const pollAfterMs = pollAfter(remote.pollInterval);
  // A question answered (or withdrawn) is not answered twice.
  const moved = storedQuestionId(task) !== null ? { driverState: { question: null } } : {};
  switch (remote.status) {
    case "working": {
      const message = remote.statusMessage?.trim().slice(0, MAX_PROGRESS_CHARS);
      return {
        status: "running",
        pollAfterMs,
        ...moved,
        ...(message && message !== task.progressText ? { progress: message } : {}),
      };
    }
    case "input_required":
      return askUser(srv, remote, task, signal);
    case "completed": {
      const result = await fetchResult(srv, ref, remoteId, signal);
      if (result.isError) return { status: "failed", error: resultText(result).slice(0, MAX_ERROR_CHARS) };
      return { publish: { partial: false, content: boundBody(resultText(result)) }, finished: true };
    }
    case "failed":
      return { status: "failed", error: await failure(srv, ref, remote, signal) };
    case "cancelled":
      return { status: "cancelled" };
    default:
      throw new DriverProtocolError(
        `${label} reported an unknown task status "${String((remote as { status: unknown }).status)}"`,
      );
  }
}

/**
 * Opens `tasks/result` over the task's session just long enough for the
 * server to deliver the queued question; it would otherwise block until the task ends.
 */
function receiveQuestion(srv: McpServer, ref: SessionRef | null, remoteId: string, signal: AbortSignal) {
  return srv.sessions.awaitQuestion(remoteId, QUESTION_WAIT_MS, signal, (stop) =>
    srv.sessions.rpc(ref, stop, "tasks/result", (c, o) =>
      c.experimental.tasks.getTaskResult(remoteId, CallToolResultSchema, { ...o, timeout: QUESTION_WAIT_MS + 1_000 }),
    ),
  );
}

async function askUser(srv: McpServer, remote: GetTaskResult, task: Task, signal: AbortSignal): Promise<StepOutcome> {
  const pollAfterMs = Math.max(pollAfter(remote.pollInterval), INPUT_POLL_MS);
  const q = await receiveQuestion(srv, refOf(srv, task), remote.taskId, signal);
  if (q) {
    const fields = q.params.mode === "url" ? undefined : q.params.requestedSchema;
    return {
      status: "input_required",
      inputRequest: { question: q.params.message.slice(0, 4_000), ...(fields ? { fields } : {}) },
      // Committed with this poll: from now on any worker can answer it.
      driverState: { question: { requestId: q.requestId }, questionWaits: 0 },
      pollAfterMs,
    };
  }
  // Already shown to the user: keep it, so the event does not change under them.
  const inputRequest = inputRequestOf(task) ?? {
    question: (remote.statusMessage || "The remote task is waiting for input.").slice(0, 4_000),
  };
  // Not delivered yet (a slow server): look again soon a few times, so the answer can be routed; then rarely.
  const waits = dataOf(task).questionWaits ?? 0;
  if (storedQuestionId(task) !== null || waits >= QUESTION_FAST_LOOKS)
    return { status: "input_required", inputRequest, pollAfterMs };
  return {
    status: "input_required",
    inputRequest,
    pollAfterMs: QUESTION_LOOK_MS,
    driverState: { questionWaits: waits + 1 },
  };
}

function terminalOf(status: GetTaskResult["status"], remote: GetTaskResult, error?: string): TerminalSnapshot {
  if (status === "completed") return { status: "succeeded" };
  if (status === "failed")
    return {
      status: "failed",
      error: (error ?? remote.statusMessage ?? "The remote task failed.").slice(0, MAX_ERROR_CHARS),
    };
  if (status === "cancelled") return { status: "cancelled" };
  // Accepted but still winding down: ask again later (the cancel loop retries with backoff).
  throw new Error(`${label} still reports the task as ${status} after tasks/cancel`);
}

async function cancelRemote(
  srv: McpServer,
  ref: SessionRef | null,
  remoteId: string,
  signal: AbortSignal,
): Promise<TerminalSnapshot> {
  try {
    const r = await call(srv, ref, signal, "tasks/cancel", (c, o) => c.experimental.tasks.cancelTask(remoteId, o));
    if (r.taskId !== remoteId) throw new DriverProtocolError(`${label} answered tasks/cancel for another task`);
    srv.sessions.takeQuestion(remoteId)?.reply({ action: "cancel" });
    return terminalOf(r.status, r);
  } catch (err) {
    // The SDK refuses to cancel a terminal task with InvalidParams: it finished first, so read how.
    if (!(isServerError(err) && err.code === ErrorCode.InvalidParams)) throw err;
    let remote: GetTaskResult;
    try {
      remote = await getTask(srv, ref, remoteId, signal);
    } catch (again) {
      // Gone entirely (expired): nothing is left running.
      if (isServerError(again) && again.code === ErrorCode.InvalidParams) return { status: "cancelled" };
      throw again;
    }
    return terminalOf(
      remote.status,
      remote,
      remote.status === "failed" ? await failure(srv, ref, remote, signal) : undefined,
    );
  }
}

type ElicitFields = Parameters<typeof elicitContent>[0];

const fieldsOf = (q: Question) => (q.params.mode === "url" ? undefined : q.params.requestedSchema) as ElicitFields;

async function answerRemote(
  srv: McpServer,
  task: Task,
  remoteId: string,
  response: string,
  signal: AbortSignal,
): Promise<void> {
  const { sessions } = srv;
  const ref = refOf(srv, task);
  // Fast path: this process still holds the question open; the SDK replies on its session.
  const held = sessions.takeQuestion(remoteId);
  if (held) return held.reply({ action: "accept", content: elicitContent(fieldsOf(held), response) });
  const remote = await getTask(srv, ref, remoteId, signal);
  // The remote moved on (or ended) by itself: the next poll reports where it is.
  if (remote.status !== "input_required") return;
  const requestId = storedQuestionId(task);
  if (requestId !== null && ref) return answerStoredQuestion(srv, task, ref, requestId, response, signal);
  // Not delivered yet when the question was shown: it may still be queued for this session.
  const q = await receiveQuestion(srv, ref, remoteId, signal);
  if (q) {
    sessions.takeQuestion(remoteId);
    return q.reply({ action: "accept", content: elicitContent(fieldsOf(q), response) });
  }
  if (task.consecutiveErrors + 1 < QUESTION_RETRIES) throw new Error(`${label} has not delivered its question yet`);
  throw new DriverProtocolError(
    `${label} delivered its question to a worker that stopped before storing it; MCP 2025-11-25 tasks deliver a question once, so this server cannot take the answer`,
  );
}

/** The question was asked of another worker: the answer is a JSON-RPC response to its stored id, over its session. */
async function answerStoredQuestion(
  srv: McpServer,
  task: Task,
  ref: SessionRef,
  requestId: string | number,
  response: string,
  signal: AbortSignal,
): Promise<void> {
  const fields = inputRequestOf(task)?.fields;
  try {
    await srv.sessions.send(
      ref,
      { jsonrpc: "2.0", id: requestId, result: { action: "accept", content: elicitContent(fields, response) } },
      signal,
    );
  } catch (err) {
    if (sessionGone(err))
      throw new DriverProtocolError(
        `${label} no longer has the session its question was asked on (restarted?); MCP 2025-11-25 tasks cannot ask again, so the answer cannot be delivered`,
      );
    throw err;
  }
}

async function listRemote(srv: McpServer, signal: AbortSignal): Promise<RemoteListing[] | null> {
  if (srv.config.reapOrphans === false) return null;
  const out: RemoteListing[] = [];
  let cursor: string | undefined;
  for (let page = 0; page < MAX_LIST_PAGES; page++) {
    let listed;
    try {
      listed = await srv.sessions.rpc(null, signal, "tasks/list", (c, o) => c.experimental.tasks.listTasks(cursor, o));
    } catch (err) {
      // A server without tasks/list: nothing to reconcile through it.
      if (isServerError(err) && err.code === ErrorCode.MethodNotFound) return null;
      throw err;
    }
    for (const t of listed.tasks)
      out.push({ remoteRef: t.taskId, active: t.status === "working" || t.status === "input_required" });
    cursor = listed.nextCursor;
    if (!cursor) break;
  }
  return out;
}
