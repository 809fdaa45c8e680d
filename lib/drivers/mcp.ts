import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import {
  CallToolResultSchema,
  CreateTaskResultSchema,
  ElicitRequestSchema,
  ErrorCode,
  RELATED_TASK_META_KEY,
  type CallToolResult,
  type ElicitRequest,
  type ElicitResult,
  type GetTaskResult,
} from "@modelcontextprotocol/sdk/types.js";
import type { RequestOptions } from "@modelcontextprotocol/sdk/shared/protocol.js";
import type { Task } from "@/lib/db/generated/client.ts";
import { DriverProtocolError } from "@/lib/errors/protocol";
import type { Driver, StepOutcome, TerminalSnapshot } from "./types";
import { boundBody, elicitContent, hide, isSchemaViolation, isServerError, pollAfter, resultText } from "./mcp-content";

/**
 * Remote research through MCP Tasks (spec 2025-11-25, SDK experimental API):
 * a task-capable tool call creates a remote task, each claim is one
 * `tasks/get`, the result is fetched with `tasks/result` once the task is
 * completed, and cancel is `tasks/cancel`.
 *
 * Input: in 2025-11-25 tasks a question is not part of `tasks/get`. The server
 * queues an `elicitation/create` request that is delivered once, on the stream
 * of a `tasks/result` call, and must be answered on the same MCP session. This
 * driver therefore holds the delivered question open in memory until Herald's
 * user answers. An answer reaches the remote only from the process and
 * connection that received the question; after a worker restart or reconnect
 * the answer waits (transient error, retried) until the server asks again or
 * moves on by itself. (Durable answers need SEP-2663 `tasks/update`, which SDK
 * 1.32 does not implement.)
 */
export interface McpDriverConfig {
  name: string;
  url: string;
  tool: string;
  headers?: Record<string, string>;
}

export type McpDriver = Driver & {
  /** Drops the connection (tests; workers keep it for the life of the process). */
  close(): Promise<void>;
};

const CALL_TIMEOUT_MS = 10_000;
/** Waiting for input changes only when the user answers, which wakes the task at once. */
const INPUT_POLL_MS = 30_000;
/** A queued question arrives within milliseconds of `tasks/result`; this only bounds a silent server. */
const QUESTION_WAIT_MS = 3_000;
/** Asked of the server; it may keep the task for less, and a task it forgot ends `failed`. */
const REMOTE_TTL_MS = 7 * 24 * 3_600_000;
const MAX_ERROR_CHARS = 4_000;
const MAX_PROGRESS_CHARS = 1_000;
const MAX_REMOTE_ID_CHARS = 255;
/** A question nobody answered for this long is released (the server's own timeout is usually shorter). */
const MAX_QUESTION_AGE_MS = 24 * 3_600_000;

interface Question {
  client: Client;
  params: ElicitRequest["params"];
  receivedAt: number;
  reply: (r: ElicitResult) => void;
}

export function createMcpDriver(config: McpDriverConfig): McpDriver {
  // Error text reaches task.error, notices and narration prompts: no server name in it.
  const label = "the remote MCP server";
  let current: { client: Client; ready: Promise<void> } | null = null;
  /** Questions delivered to this process, by remote task id, waiting for the user. */
  const questions = new Map<string, Question>();
  const questionWaiters = new Map<string, Set<() => void>>();
  /**
   * Remote ids this process created, by Herald task id: the loop compensates a
   * failed hand-off with the task row it claimed, which has no remoteRef yet.
   */
  const submitted = new Map<string, string>();

  function remember(taskId: string, remoteId: string) {
    submitted.set(taskId, remoteId);
    // Only the hand-off window needs it; bound the map for a long-lived worker.
    if (submitted.size > 1_000) submitted.delete(submitted.keys().next().value!);
  }

  /** Withdraws held questions (their connection is gone, or nobody answered in time). */
  function releaseQuestions(which: (q: Question) => boolean) {
    for (const [id, q] of questions) {
      if (which(q)) {
        questions.delete(id);
        q.reply({ action: "cancel" });
      }
    }
  }

  function onQuestion(client: Client, request: ElicitRequest, signal: AbortSignal): Promise<ElicitResult> {
    const meta = request.params._meta as Record<string, unknown> | undefined;
    const taskId = (meta?.[RELATED_TASK_META_KEY] as { taskId?: unknown } | undefined)?.taskId;
    // Herald's calls are all task calls; a question outside a task has nobody to answer it.
    if (typeof taskId !== "string") return Promise.resolve({ action: "decline" });
    const now = Date.now();
    releaseQuestions((q) => now - q.receivedAt > MAX_QUESTION_AGE_MS);
    return new Promise<ElicitResult>((resolve) => {
      let done = false;
      const reply = (r: ElicitResult) => {
        if (done) return;
        done = true;
        resolve(r);
      };
      // The server asked again: the older question can no longer be answered.
      questions.get(taskId)?.reply({ action: "cancel" });
      questions.set(taskId, { client, params: request.params, receivedAt: Date.now(), reply });
      signal.addEventListener("abort", () => {
        if (questions.get(taskId)?.reply === reply) questions.delete(taskId);
        reply({ action: "cancel" });
      });
      for (const wake of questionWaiters.get(taskId) ?? []) wake();
    });
  }

  function connect(): { client: Client; ready: Promise<void> } {
    if (current) return current;
    const client = new Client({ name: "herald", version: "1.0.0" }, { capabilities: { elicitation: { form: {} } } });
    client.setRequestHandler(ElicitRequestSchema, (req, extra) => onQuestion(client, req, extra.signal));
    client.onerror = () => {
      // Failed calls surface through their own promise; stray stream errors are only noise here.
    };
    client.onclose = () => {
      if (current?.client === client) current = null;
      releaseQuestions((q) => q.client === client);
    };
    const transport = new StreamableHTTPClientTransport(new URL(config.url), {
      requestInit: config.headers ? { headers: config.headers } : undefined,
    });
    const conn = { client, ready: client.connect(transport, { timeout: CALL_TIMEOUT_MS }) };
    conn.ready.catch(() => drop(client));
    current = conn;
    return conn;
  }

  function drop(client: Client) {
    if (current?.client === client) current = null;
    releaseQuestions((q) => q.client === client);
    client.close().catch(() => {});
  }

  function abortable<T>(p: Promise<T>, signal: AbortSignal): Promise<T> {
    if (signal.aborted) return Promise.reject(signal.reason);
    return new Promise<T>((resolve, reject) => {
      const onAbort = () => reject(signal.reason);
      signal.addEventListener("abort", onAbort, { once: true });
      p.then(resolve, reject).finally(() => signal.removeEventListener("abort", onAbort));
    });
  }

  /** One request on the shared connection; a broken connection is replaced on the next call. */
  async function rpc<T>(signal: AbortSignal, what: string, fn: (c: Client, o: RequestOptions) => Promise<T>): Promise<T> {
    const conn = connect();
    try {
      await abortable(conn.ready, signal);
      return await fn(conn.client, { timeout: CALL_TIMEOUT_MS, signal });
    } catch (err) {
      if (signal.aborted) throw err;
      if (isSchemaViolation(err)) throw new DriverProtocolError(`${label} sent a malformed ${what} reply: ${(err as Error).message.slice(0, 500)}`);
      if (!isServerError(err)) drop(conn.client);
      throw err;
    }
  }

  const remoteIdOf = (task: Task): string => {
    const id = task.remoteRef ?? submitted.get(task.id);
    if (!id) throw new DriverProtocolError("the task has no remote MCP task id");
    return id;
  };

  async function getTask(remoteId: string, signal: AbortSignal): Promise<GetTaskResult> {
    const t = await rpc(signal, "tasks/get", (c, o) => c.experimental.tasks.getTask(remoteId, o));
    if (t.taskId !== remoteId) throw new DriverProtocolError(`${label} answered tasks/get for another task`);
    return t;
  }

  /**
   * Opens `tasks/result` just long enough for the server to deliver the queued
   * question; it would otherwise block until the task ends.
   */
  async function receiveQuestion(remoteId: string, signal: AbortSignal): Promise<Question | null> {
    const have = questions.get(remoteId);
    if (have) return have;
    const stop = new AbortController();
    const onAbort = () => stop.abort(signal.reason);
    signal.addEventListener("abort", onAbort, { once: true });
    let wake = () => {};
    const arrived = new Promise<void>((resolve) => (wake = resolve));
    const waiters = questionWaiters.get(remoteId) ?? new Set();
    waiters.add(wake);
    questionWaiters.set(remoteId, waiters);
    const timer = setTimeout(wake, QUESTION_WAIT_MS);
    try {
      const fetching = rpc(stop.signal, "tasks/result", (c, o) =>
        c.experimental.tasks.getTaskResult(remoteId, CallToolResultSchema, { ...o, timeout: QUESTION_WAIT_MS + 1_000 }),
      ).then(
        () => {},
        () => {},
      );
      await Promise.race([arrived, fetching]);
      signal.throwIfAborted();
      return questions.get(remoteId) ?? null;
    } finally {
      clearTimeout(timer);
      waiters.delete(wake);
      if (waiters.size === 0) questionWaiters.delete(remoteId);
      signal.removeEventListener("abort", onAbort);
      stop.abort(new Error("question received or not coming"));
    }
  }

  async function inputRequest(remote: GetTaskResult, task: Task, signal: AbortSignal): Promise<unknown> {
    const q = await receiveQuestion(remote.taskId, signal);
    if (q) {
      const fields = q.params.mode === "url" ? undefined : q.params.requestedSchema;
      return { question: q.params.message.slice(0, 4_000), ...(fields ? { fields } : {}) };
    }
    // Already shown to the user: keep it, so the event does not change under them.
    if (task.inputRequest !== null && task.inputRequest !== undefined) return task.inputRequest;
    return { question: (remote.statusMessage || "The remote task is waiting for input.").slice(0, 4_000) };
  }

  /** One fetch of the outcome; a failed task's own words beat its last status line. */
  async function fetchResult(remoteId: string, signal: AbortSignal): Promise<CallToolResult> {
    return rpc(signal, "tasks/result", (c, o) => c.experimental.tasks.getTaskResult(remoteId, CallToolResultSchema, o));
  }

  async function failure(remote: GetTaskResult, signal: AbortSignal): Promise<string> {
    let text = "";
    try {
      const result = await fetchResult(remote.taskId, signal);
      text = result.content.flatMap((c) => (c.type === "text" ? [c.text] : [])).join("\n").trim();
    } catch (err) {
      if (!isServerError(err)) throw err;
    }
    return (text || remote.statusMessage || "The remote task failed.").slice(0, MAX_ERROR_CHARS);
  }

  function terminalOf(status: GetTaskResult["status"], remote: GetTaskResult, error?: string): TerminalSnapshot {
    if (status === "completed") return { status: "succeeded" };
    if (status === "failed") return { status: "failed", error: (error ?? remote.statusMessage ?? "The remote task failed.").slice(0, MAX_ERROR_CHARS) };
    if (status === "cancelled") return { status: "cancelled" };
    // Accepted but still winding down: ask again later (the cancel loop retries with backoff).
    throw new Error(`${label} still reports the task as ${status} after tasks/cancel`);
  }

  return {
    maxConsecutiveErrors: Infinity,

    async submit(task, signal) {
      const created = await rpc(signal, "tools/call", (c, o) =>
        c.request(
          { method: "tools/call", params: { name: config.tool, arguments: { prompt: task.prompt, title: task.title } } },
          CreateTaskResultSchema,
          { ...o, task: { ttl: REMOTE_TTL_MS } },
        ),
      ).catch((err) => {
        // The server refused the call itself (unknown tool, bad arguments, no task support): retrying cannot help.
        if (isServerError(err) && err.code !== ErrorCode.InternalError) throw new DriverProtocolError(`${label} refused the ${config.tool} call: ${err.message}`);
        throw err;
      });
      const id = created.task.taskId;
      if (!id || id.length > MAX_REMOTE_ID_CHARS) throw new DriverProtocolError(`${label} returned an unusable task id`);
      remember(task.id, id);
      return { remoteRef: id, driverData: { server: config.name } };
    },

    async step({ task, signal }) {
      const remoteId = remoteIdOf(task);
      try {
        const o = await poll(remoteId, task, signal);
        return { ...o, progress: hide(o.progress, remoteId), error: hide(o.error, remoteId), inputRequest: hide(o.inputRequest, remoteId), publish: hide(o.publish, remoteId) };
      } catch (err) {
        throw hide(err, remoteId);
      }
    },

    async cancel(task, signal) {
      const remoteId = task.remoteRef ?? submitted.get(task.id);
      // Nothing reached the remote: nothing to stop.
      if (!remoteId) return { status: "cancelled" };
      try {
        return hide(await cancelRemote(remoteId, signal), remoteId);
      } catch (err) {
        throw hide(err, remoteId);
      }
    },

    async answer(task, response, signal) {
      const remoteId = remoteIdOf(task);
      try {
        await answerRemote(remoteId, response, signal);
      } catch (err) {
        throw hide(err, remoteId);
      }
    },

    async close() {
      const conn = current;
      current = null;
      releaseQuestions(() => true);
      await conn?.client.close().catch(() => {});
    },
  };

  async function poll(remoteId: string, task: Task, signal: AbortSignal): Promise<StepOutcome> {
    let remote: GetTaskResult;
    try {
      remote = await getTask(remoteId, signal);
    } catch (err) {
      // The SDK answers an unknown task with InvalidParams: expired (ttl) or lost in a server restart.
      if (isServerError(err) && err.code === ErrorCode.InvalidParams) {
        return { status: "failed", error: `${label} no longer knows this task (${err.message.slice(0, 300)})` };
      }
      throw err;
    }
    const pollAfterMs = pollAfter(remote.pollInterval);
    switch (remote.status) {
      case "working": {
        const message = remote.statusMessage?.trim().slice(0, MAX_PROGRESS_CHARS);
        return { status: "running", pollAfterMs, ...(message && message !== task.progressText ? { progress: message } : {}) };
      }
      case "input_required":
        return { status: "input_required", inputRequest: await inputRequest(remote, task, signal), pollAfterMs: Math.max(pollAfterMs, INPUT_POLL_MS) };
      case "completed": {
        const result = await fetchResult(remoteId, signal);
        if (result.isError) return { status: "failed", error: resultText(result).slice(0, MAX_ERROR_CHARS) };
        return { publish: { partial: false, content: boundBody(resultText(result)) }, finished: true };
      }
      case "failed":
        return { status: "failed", error: await failure(remote, signal) };
      case "cancelled":
        return { status: "cancelled" };
      default:
        throw new DriverProtocolError(`${label} reported an unknown task status "${String((remote as { status: unknown }).status)}"`);
    }
  }

  async function cancelRemote(remoteId: string, signal: AbortSignal): Promise<TerminalSnapshot> {
    try {
      const r = await rpc(signal, "tasks/cancel", (c, o) => c.experimental.tasks.cancelTask(remoteId, o));
      if (r.taskId !== remoteId) throw new DriverProtocolError(`${label} answered tasks/cancel for another task`);
      questions.get(remoteId)?.reply({ action: "cancel" });
      questions.delete(remoteId);
      return terminalOf(r.status, r);
    } catch (err) {
      // The SDK refuses to cancel a terminal task with InvalidParams: it finished first, so read how.
      if (!(isServerError(err) && err.code === ErrorCode.InvalidParams)) throw err;
      let remote: GetTaskResult;
      try {
        remote = await getTask(remoteId, signal);
      } catch (again) {
        // Gone entirely (expired): nothing is left running.
        if (isServerError(again) && again.code === ErrorCode.InvalidParams) return { status: "cancelled" };
        throw again;
      }
      return terminalOf(remote.status, remote, remote.status === "failed" ? await failure(remote, signal) : undefined);
    }
  }

  async function answerRemote(remoteId: string, response: string, signal: AbortSignal): Promise<void> {
    let q = questions.get(remoteId) ?? null;
    if (!q) {
      const remote = await getTask(remoteId, signal);
      // The remote moved on (or ended) by itself: the next poll reports where it is.
      if (remote.status !== "input_required") return;
      q = await receiveQuestion(remoteId, signal);
      if (!q) {
        throw new Error(
          `${label} delivered its question over another connection (worker restart or reconnect); MCP tasks deliver a question once, so this answer waits until the server asks again`,
        );
      }
    }
    questions.delete(remoteId);
    const fields = q.params.mode === "url" ? undefined : q.params.requestedSchema;
    q.reply({ action: "accept", content: elicitContent(fields, response) });
  }
}
