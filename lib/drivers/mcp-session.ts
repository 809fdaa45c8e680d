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

/** One request made over a session's client. */
export type RpcFn<T> = (c: Client, o: RequestOptions) => Promise<T>;

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

function abortable<T>(p: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(signal.reason);
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener("abort", onAbort, { once: true });
    p.then(resolve, reject).finally(() => signal.removeEventListener("abort", onAbort));
  });
}

/** Questions delivered to this process, by remote task id, waiting for the user. */
class HeldQuestions {
  private readonly byTask = new Map<string, Question>();
  private readonly waiters = new Map<string, Set<() => void>>();

  get(remoteId: string): Question | null {
    return this.byTask.get(remoteId) ?? null;
  }

  take(remoteId: string): Question | null {
    const q = this.get(remoteId);
    this.byTask.delete(remoteId);
    return q;
  }

  /** Whether a question still waits on this connection (it must stay open to be answered). */
  heldOn(conn: Conn): boolean {
    return [...this.byTask.values()].some((q) => q.conn === conn);
  }

  release(which: (q: Question) => boolean) {
    for (const [id, q] of this.byTask) {
      if (which(q)) {
        this.byTask.delete(id);
        q.reply({ action: "cancel" });
      }
    }
  }

  /** The SDK's handler for `elicitation/create`: resolves when the user answers (or the question is released). */
  receive(conn: Conn, request: ElicitRequest, requestId: string | number, signal: AbortSignal): Promise<ElicitResult> {
    const meta = request.params._meta as Record<string, unknown> | undefined;
    const taskId = (meta?.[RELATED_TASK_META_KEY] as { taskId?: unknown } | undefined)?.taskId;
    // Herald's calls are all task calls; a question outside a task has nobody to answer it.
    if (typeof taskId !== "string") return Promise.resolve({ action: "decline" });
    const now = Date.now();
    this.release((q) => now - q.receivedAt > MAX_QUESTION_AGE_MS);
    return new Promise<ElicitResult>((resolve) => {
      let done = false;
      const reply = (r: ElicitResult) => {
        if (done) return;
        done = true;
        resolve(r);
      };
      // The server asked again: the older question can no longer be answered.
      this.byTask.get(taskId)?.reply({ action: "cancel" });
      this.byTask.set(taskId, { conn, params: request.params, requestId, receivedAt: Date.now(), reply });
      signal.addEventListener("abort", () => {
        if (this.byTask.get(taskId)?.reply === reply) this.byTask.delete(taskId);
        reply({ action: "cancel" });
      });
      for (const wake of this.waiters.get(taskId) ?? []) wake();
    });
  }

  /**
   * Waits up to `ms` for the server to deliver the question of `remoteId`
   * (or returns the one this process already holds); `fetch` opens the
   * request on whose stream it arrives.
   */
  async await(
    remoteId: string,
    ms: number,
    signal: AbortSignal,
    fetch: (stop: AbortSignal) => Promise<unknown>,
  ): Promise<Question | null> {
    const have = this.get(remoteId);
    if (have) return have;
    const stop = new AbortController();
    const onAbort = () => stop.abort(signal.reason);
    signal.addEventListener("abort", onAbort, { once: true });
    let wake = () => {};
    const arrived = new Promise<void>((resolve) => (wake = resolve));
    const waiters = this.waiters.get(remoteId) ?? new Set();
    waiters.add(wake);
    this.waiters.set(remoteId, waiters);
    const timer = setTimeout(wake, ms);
    try {
      await Promise.race([
        arrived,
        fetch(stop.signal).then(
          () => {},
          () => {},
        ),
      ]);
      signal.throwIfAborted();
      return this.get(remoteId);
    } finally {
      clearTimeout(timer);
      waiters.delete(wake);
      if (waiters.size === 0) this.waiters.delete(remoteId);
      signal.removeEventListener("abort", onAbort);
      stop.abort(new Error("question received or not coming"));
    }
  }
}

/** This process's own session and the reopened sessions of stored tasks. */
class Connections {
  private fresh: Conn | null = null;
  private readonly reopened = new Map<string, Conn>();

  constructor(
    private readonly config: { url: string; headers?: Record<string, string> },
    private readonly questions: HeldQuestions,
  ) {}

  /** This process's own session (new tasks); the session of a stored task otherwise. */
  connFor(ref: SessionRef | null): Conn {
    if (!ref) {
      this.fresh ??= this.open(null);
      return this.fresh;
    }
    if (this.fresh?.transport.sessionId === ref.session) return this.fresh;
    let conn = this.reopened.get(ref.session);
    if (!conn) {
      conn = this.open(ref);
      this.reopened.set(ref.session, conn);
      if (this.reopened.size > MAX_SESSIONS) {
        const [oldest, c] = this.reopened.entries().next().value!;
        this.reopened.delete(oldest);
        // Keep connections a question is still waiting on; the rest reopen on demand.
        if (!this.questions.heldOn(c)) c.client.close().catch(() => {});
      }
    }
    return conn;
  }

  /** The session a new task was just created over, to store with it. */
  freshRef(): SessionRef | null {
    const t = this.fresh?.transport;
    return t?.sessionId
      ? { session: t.sessionId, ...(t.protocolVersion ? { protocol: t.protocolVersion } : {}) }
      : null;
  }

  drop(conn: Conn) {
    this.forget(conn);
    conn.client.close().catch(() => {});
  }

  async closeAll() {
    const all = [this.fresh, ...this.reopened.values()].filter((c): c is Conn => c !== null);
    this.fresh = null;
    this.reopened.clear();
    await Promise.all(all.map((c) => c.client.close().catch(() => {})));
  }

  private open(ref: SessionRef | null): Conn {
    const client = new Client({ name: "herald", version: "1.0.0" }, { capabilities: { elicitation: { form: {} } } });
    const transport = new StreamableHTTPClientTransport(new URL(this.config.url), {
      requestInit: this.config.headers ? { headers: this.config.headers } : undefined,
      ...(ref ? { sessionId: ref.session } : {}),
    });
    if (ref?.protocol) transport.setProtocolVersion(ref.protocol);
    const conn = { client, transport } as Conn;
    client.setRequestHandler(ElicitRequestSchema, (req, extra) =>
      this.questions.receive(conn, req, extra.requestId, extra.signal),
    );
    client.onerror = () => {
      // Failed calls surface through their own promise; stray stream errors are only noise here.
    };
    client.onclose = () => this.forget(conn);
    // With a session id the SDK skips `initialize`: the server already knows this session.
    conn.ready = client.connect(transport, { timeout: CALL_TIMEOUT_MS });
    conn.ready.catch(() => this.drop(conn));
    return conn;
  }

  private forget(conn: Conn) {
    if (this.fresh === conn) this.fresh = null;
    for (const [id, c] of this.reopened) if (c === conn) this.reopened.delete(id);
    this.questions.release((q) => q.conn === conn);
  }
}

export function createSessions(config: { url: string; headers?: Record<string, string> }) {
  const questions = new HeldQuestions();
  const conns = new Connections(config, questions);

  /** One request; a broken connection is replaced on the next call. */
  async function rpc<T>(ref: SessionRef | null, signal: AbortSignal, what: string, fn: RpcFn<T>): Promise<T> {
    const conn = conns.connFor(ref);
    try {
      await abortable(conn.ready, signal);
      return await fn(conn.client, { timeout: CALL_TIMEOUT_MS, signal });
    } catch (err) {
      if (signal.aborted) throw err;
      if (isSchemaViolation(err))
        throw new DriverProtocolError(
          `${label} sent a malformed ${what} reply: ${(err as Error).message.slice(0, 500)}`,
        );
      if (!isServerError(err)) conns.drop(conn);
      throw err;
    }
  }

  /** Sends one JSON-RPC message (an answer) over a session; throws what the transport saw (404: session gone). */
  async function send(ref: SessionRef, message: JSONRPCMessage, signal: AbortSignal): Promise<void> {
    const conn = conns.connFor(ref);
    await abortable(conn.ready, signal);
    try {
      await abortable(conn.transport.send(message), signal);
    } catch (err) {
      if (!signal.aborted) conns.drop(conn);
      throw err;
    }
  }

  return {
    rpc,
    send,
    freshRef: () => conns.freshRef(),
    awaitQuestion: (
      remoteId: string,
      ms: number,
      signal: AbortSignal,
      fetch: (stop: AbortSignal) => Promise<unknown>,
    ) => questions.await(remoteId, ms, signal, fetch),
    question: (remoteId: string) => questions.get(remoteId),
    takeQuestion: (remoteId: string) => questions.take(remoteId),
    async close() {
      questions.release(() => true);
      await conns.closeAll();
    },
  };
}

export type McpSessions = ReturnType<typeof createSessions>;
