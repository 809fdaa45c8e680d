import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport, StreamableHTTPError } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import {
  ElicitRequestSchema,
  RELATED_TASK_META_KEY,
  type ElicitRequest,
  type ElicitResult,
  type JSONRPCMessage,
} from "@modelcontextprotocol/sdk/types.js";
import type { RequestOptions } from "@modelcontextprotocol/sdk/shared/protocol.js";
import { DriverProtocolError } from "@/lib/errors/protocol";
import { isSchemaViolation, isServerError } from "./mcp-content";

/**
 * MCP sessions of one configured server, as the mcp driver uses them.
 *
 * A 2025-11-25 server may bind a task to the MCP session that created it
 * (the SDK's task store and message queue do): `tasks/get` from another
 * session is "not found", and the task's question (`elicitation/create`) is
 * queued for that session only. So the driver stores the creating session's
 * id and protocol version with the task and every later call for it goes over
 * that session, reopened without `initialize` by whichever process holds the
 * task. New tasks are created over this process's own fresh session.
 */
export interface SessionRef {
  session: string;
  protocol?: string;
}

export interface Question {
  conn: Conn;
  params: ElicitRequest["params"];
  /** The server's JSON-RPC id for the question: an answer is a response to it, from any process. */
  requestId: string | number;
  receivedAt: number;
  reply: (r: ElicitResult) => void;
}

export interface Conn {
  client: Client;
  transport: StreamableHTTPClientTransport;
  ready: Promise<void>;
}

const CALL_TIMEOUT_MS = 10_000;
/** A question nobody answered for this long is released (the server's own timeout is usually shorter). */
const MAX_QUESTION_AGE_MS = 24 * 3_600_000;
/** Reopened sessions kept per process; the rest are reopened on demand (no server state is lost). */
const MAX_SESSIONS = 200;

export const label = "the remote MCP server";

/** The server no longer has the session (restart, expiry): HTTP 404 on a call that carried its id. */
export function sessionGone(err: unknown): boolean {
  return err instanceof StreamableHTTPError && err.code === 404;
}

export function createSessions(config: { url: string; headers?: Record<string, string> }) {
  let fresh: Conn | null = null;
  const reopened = new Map<string, Conn>();
  /** Questions delivered to this process, by remote task id, waiting for the user. */
  const questions = new Map<string, Question>();
  const questionWaiters = new Map<string, Set<() => void>>();

  function releaseQuestions(which: (q: Question) => boolean) {
    for (const [id, q] of questions) {
      if (which(q)) {
        questions.delete(id);
        q.reply({ action: "cancel" });
      }
    }
  }

  function onQuestion(conn: Conn, request: ElicitRequest, requestId: string | number, signal: AbortSignal): Promise<ElicitResult> {
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
      questions.set(taskId, { conn, params: request.params, requestId, receivedAt: Date.now(), reply });
      signal.addEventListener("abort", () => {
        if (questions.get(taskId)?.reply === reply) questions.delete(taskId);
        reply({ action: "cancel" });
      });
      for (const wake of questionWaiters.get(taskId) ?? []) wake();
    });
  }

  function open(ref: SessionRef | null): Conn {
    const client = new Client({ name: "herald", version: "1.0.0" }, { capabilities: { elicitation: { form: {} } } });
    const transport = new StreamableHTTPClientTransport(new URL(config.url), {
      requestInit: config.headers ? { headers: config.headers } : undefined,
      ...(ref ? { sessionId: ref.session } : {}),
    });
    if (ref?.protocol) transport.setProtocolVersion(ref.protocol);
    const conn = { client, transport } as Conn;
    client.setRequestHandler(ElicitRequestSchema, (req, extra) => onQuestion(conn, req, extra.requestId, extra.signal));
    client.onerror = () => {
      // Failed calls surface through their own promise; stray stream errors are only noise here.
    };
    client.onclose = () => forget(conn);
    // With a session id the SDK skips `initialize`: the server already knows this session.
    conn.ready = client.connect(transport, { timeout: CALL_TIMEOUT_MS });
    conn.ready.catch(() => drop(conn));
    return conn;
  }

  function forget(conn: Conn) {
    if (fresh === conn) fresh = null;
    for (const [id, c] of reopened) if (c === conn) reopened.delete(id);
    releaseQuestions((q) => q.conn === conn);
  }

  function drop(conn: Conn) {
    forget(conn);
    conn.client.close().catch(() => {});
  }

  /** This process's own session (new tasks); the session of a stored task otherwise. */
  function connFor(ref: SessionRef | null): Conn {
    if (!ref) {
      fresh ??= open(null);
      return fresh;
    }
    if (fresh?.transport.sessionId === ref.session) return fresh;
    let conn = reopened.get(ref.session);
    if (!conn) {
      conn = open(ref);
      reopened.set(ref.session, conn);
      if (reopened.size > MAX_SESSIONS) {
        const [oldest, c] = reopened.entries().next().value!;
        reopened.delete(oldest);
        // Keep connections a question is still waiting on; the rest reopen on demand.
        if (![...questions.values()].some((q) => q.conn === c)) c.client.close().catch(() => {});
      }
    }
    return conn;
  }

  function abortable<T>(p: Promise<T>, signal: AbortSignal): Promise<T> {
    if (signal.aborted) return Promise.reject(signal.reason);
    return new Promise<T>((resolve, reject) => {
      const onAbort = () => reject(signal.reason);
      signal.addEventListener("abort", onAbort, { once: true });
      p.then(resolve, reject).finally(() => signal.removeEventListener("abort", onAbort));
    });
  }

  /** One request; a broken connection is replaced on the next call. */
  async function rpc<T>(ref: SessionRef | null, signal: AbortSignal, what: string, fn: (c: Client, o: RequestOptions) => Promise<T>): Promise<T> {
    const conn = connFor(ref);
    try {
      await abortable(conn.ready, signal);
      return await fn(conn.client, { timeout: CALL_TIMEOUT_MS, signal });
    } catch (err) {
      if (signal.aborted) throw err;
      if (isSchemaViolation(err)) throw new DriverProtocolError(`${label} sent a malformed ${what} reply: ${(err as Error).message.slice(0, 500)}`);
      if (!isServerError(err)) drop(conn);
      throw err;
    }
  }

  /** Sends one JSON-RPC message (an answer) over a session; throws what the transport saw (404: session gone). */
  async function send(ref: SessionRef, message: JSONRPCMessage, signal: AbortSignal): Promise<void> {
    const conn = connFor(ref);
    await abortable(conn.ready, signal);
    try {
      await abortable(conn.transport.send(message), signal);
    } catch (err) {
      if (!signal.aborted) drop(conn);
      throw err;
    }
  }

  /** The session a new task was just created over, to store with it. */
  function freshRef(): SessionRef | null {
    const t = fresh?.transport;
    return t?.sessionId ? { session: t.sessionId, ...(t.protocolVersion ? { protocol: t.protocolVersion } : {}) } : null;
  }

  /**
   * Waits up to `ms` for the server to deliver the question of `remoteId`
   * (or returns the one this process already holds); `fetch` opens the
   * request on whose stream it arrives.
   */
  async function awaitQuestion(remoteId: string, ms: number, signal: AbortSignal, fetch: (stop: AbortSignal) => Promise<unknown>): Promise<Question | null> {
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
    const timer = setTimeout(wake, ms);
    try {
      await Promise.race([arrived, fetch(stop.signal).then(() => {}, () => {})]);
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

  return {
    rpc,
    send,
    freshRef,
    awaitQuestion,
    question: (remoteId: string) => questions.get(remoteId) ?? null,
    takeQuestion(remoteId: string): Question | null {
      const q = questions.get(remoteId) ?? null;
      questions.delete(remoteId);
      return q;
    },
    async close() {
      releaseQuestions(() => true);
      const all = [fresh, ...reopened.values()].filter((c): c is Conn => c !== null);
      fresh = null;
      reopened.clear();
      await Promise.all(all.map((c) => c.client.close().catch(() => {})));
    },
  };
}

export type McpSessions = ReturnType<typeof createSessions>;
