import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import { randomUUID } from "node:crypto";
import type { AddressInfo } from "node:net";
import { z } from "zod";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import {
  InMemoryTaskMessageQueue,
  InMemoryTaskStore,
} from "@modelcontextprotocol/sdk/experimental/tasks/stores/in-memory.js";
import type { CreateTaskOptions, TaskStore } from "@modelcontextprotocol/sdk/experimental/tasks/interfaces.js";
import {
  ElicitResultSchema,
  type CallToolResult,
  type Request,
  type RequestId,
  type Result,
  type Task,
} from "@modelcontextprotocol/sdk/types.js";

/**
 * A real MCP server (SDK McpServer + experimental registerToolTask + the SDK's
 * in-memory task store) over Streamable HTTP on loopback, for driving Herald's
 * mcp driver end to end. Its `research` tool is deterministic: it works for
 * `durationMs`, moves its statusMessage through `steps` stages, then ends the
 * way `mode` says.
 */
export type PeerMode =
  /** Completes with a text result. */
  | "complete"
  /** Ends `failed` with an isError result carrying `failMessage`. */
  | "fail"
  /** After the first stage asks `question` by elicitation (input_required), then completes with the answer. */
  | "input"
  /** A cancel arrives too late: the work finishes first and the task ends `completed`. */
  | "ignore-cancel";

export interface PeerOptions {
  durationMs: number;
  steps: number;
  mode: PeerMode;
  /** Suggested pollInterval of new tasks (ms). */
  pollIntervalMs: number;
  question: string;
  failMessage: string;
  /**
   * Like the SDK's own in-memory store: a task is visible only to the MCP
   * session that created it (tasks/get, tasks/result, tasks/cancel, tasks/list
   * from another session: not found). Default false: visible to any session.
   */
  sessionScoped?: boolean;
  /** The final text; defaults to a short report naming the title and prompt. */
  resultText?: (args: { prompt: string; title?: string; answer?: string }) => string;
}

export interface PeerTask {
  taskId: string;
  args: { prompt: string; title?: string };
  mode: PeerMode;
  /** Answers the tool received to its elicitation, in order. */
  answers: unknown[];
}

export interface PeerCall {
  method: string;
  taskId?: string;
  /** The peer answered this call with an injected failure. */
  failed: boolean;
  headers: Record<string, string | string[] | undefined>;
}

export interface FailureOptions {
  methods?: string[];
  kind?: "http" | "rpc" | "reply";
  reply?: (params: { taskId?: string } | undefined) => unknown;
}

export interface McpPeer {
  url: string;
  /** Mutable: later tool calls use the new values. */
  options: PeerOptions;
  /** Per remote task: what was asked for and what it received. */
  tasks: Map<string, PeerTask>;
  /** Every JSON-RPC request the peer received, in order (responses and notifications are left out). */
  calls: PeerCall[];
  /** The task as the SDK store holds it (status, statusMessage, pollInterval…). */
  taskState(taskId: string): Promise<Task | null>;
  /**
   * The next `count` requests (of `methods`, if given) misbehave: HTTP 500, a
   * JSON-RPC internal error, or (`reply`) a result of the test's making.
   */
  failNext(count: number, opts?: FailureOptions): void;
  stop(): Promise<void>;
}

const DEFAULTS: PeerOptions = {
  durationMs: 300,
  steps: 3,
  mode: "complete",
  pollIntervalMs: 500,
  question: "Which region should the research cover?",
  failMessage: "The research source is unavailable.",
};

const defaultResult = (a: { prompt: string; title?: string; answer?: string }) =>
  [`# ${a.title ?? "Research"}`, "", `Findings for: ${a.prompt}`, ...(a.answer ? ["", `Scope: ${a.answer}`] : [])].join(
    "\n",
  );

export async function startMcpPeer(opts: Partial<PeerOptions> = {}): Promise<McpPeer> {
  const options: PeerOptions = { ...DEFAULTS, ...opts };
  const tasks = new Map<string, PeerTask>();
  const calls: PeerCall[] = [];
  const inner = new InMemoryTaskStore();
  const queue = new InMemoryTaskMessageQueue();
  const timers = new Set<NodeJS.Timeout>();
  let stopped = false;
  let failures: FailureOptions & { remaining: number } = { remaining: 0 };

  const sleep = (ms: number) =>
    new Promise<void>((resolve) => {
      const t = setTimeout(() => (timers.delete(t), resolve()), ms);
      timers.add(t);
    });

  const resultFor = (task: PeerTask, answer?: string): CallToolResult => ({
    content: [{ type: "text", text: (options.resultText ?? defaultResult)({ ...task.args, answer }) }],
  });

  /**
   * The SDK's store scopes a task to the MCP session that created it. Herald
   * polls from any worker and reconnects after failures, so, like a real
   * server that scopes tasks to the caller's authorisation rather than to one
   * connection, this peer keeps tasks visible across sessions. A cancel that
   * reaches an `ignore-cancel` task finds the work already finished.
   */
  const ownerSession = new Map<string, string | undefined>();
  /** Another session asking about a session-scoped task: as if it did not exist. */
  const hidden = (taskId: string, sessionId?: string) =>
    options.sessionScoped === true && sessionId !== undefined && ownerSession.get(taskId) !== sessionId;
  const store: TaskStore = {
    async createTask(params: CreateTaskOptions, requestId: RequestId, request: Request, sessionId?: string) {
      const task = await inner.createTask({ ...params, pollInterval: options.pollIntervalMs }, requestId, request);
      ownerSession.set(task.taskId, sessionId);
      return task;
    },
    getTask: async (taskId: string, sessionId?: string) => (hidden(taskId, sessionId) ? null : inner.getTask(taskId)),
    storeTaskResult: (taskId: string, status: "completed" | "failed", result: Result) =>
      inner.storeTaskResult(taskId, status, result),
    async getTaskResult(taskId: string, sessionId?: string) {
      if (hidden(taskId, sessionId)) throw new Error(`Task not found: ${taskId}`);
      return inner.getTaskResult(taskId);
    },
    async updateTaskStatus(taskId: string, status: Task["status"], statusMessage?: string, sessionId?: string) {
      if (hidden(taskId, sessionId)) throw new Error(`Task not found: ${taskId}`);
      const task = tasks.get(taskId);
      if (status === "cancelled" && task?.mode === "ignore-cancel") {
        return inner.storeTaskResult(taskId, "completed", resultFor(task));
      }
      return inner.updateTaskStatus(taskId, status, statusMessage);
    },
    async listTasks(cursor?: string, sessionId?: string) {
      const page = await inner.listTasks(cursor);
      return { ...page, tasks: page.tasks.filter((t) => !hidden(t.taskId, sessionId)) };
    },
  };

  /** Stops quietly when the task was cancelled (or the peer stopped) under it. */
  async function live(taskId: string): Promise<boolean> {
    if (stopped) return false;
    const t = await inner.getTask(taskId);
    return !!t && (t.status === "working" || t.status === "input_required");
  }

  async function work(task: PeerTask, durationMs: number, ask: (taskId: string) => Promise<unknown>): Promise<void> {
    const { taskId } = task;
    const stepMs = Math.max(1, Math.round(durationMs / Math.max(1, options.steps)));
    try {
      await inner.updateTaskStatus(taskId, "working", `Started: ${task.args.title ?? task.args.prompt}`.slice(0, 200));
      let answer: string | undefined;
      for (let i = 1; i <= options.steps; i++) {
        await sleep(stepMs);
        if (!(await live(taskId))) return;
        if (task.mode === "input" && i === 1) {
          await inner.updateTaskStatus(taskId, "input_required", options.question);
          const reply = ElicitResultSchema.parse(await ask(taskId));
          task.answers.push(reply);
          if (!(await live(taskId))) return;
          if (reply.action !== "accept") {
            await inner.storeTaskResult(taskId, "failed", {
              content: [{ type: "text", text: `Input was ${reply.action}d.` }],
              isError: true,
            });
            return;
          }
          answer = String(Object.values(reply.content ?? {})[0] ?? "");
          await inner.updateTaskStatus(taskId, "working", `Got the answer: ${answer}`.slice(0, 200));
        }
        await inner.updateTaskStatus(taskId, "working", `Researching part ${i} of ${options.steps}`);
      }
      await sleep(stepMs);
      if (!(await live(taskId))) return;
      if (task.mode === "fail") {
        await inner.storeTaskResult(taskId, "failed", {
          content: [{ type: "text", text: options.failMessage }],
          isError: true,
        });
      } else {
        await inner.storeTaskResult(taskId, "completed", resultFor(task, answer));
      }
    } catch (err) {
      // A task cancelled or expired mid-step rejects further writes; anything else is a peer bug worth seeing.
      if (await live(taskId).catch(() => false)) console.error("[mcp-peer] task work failed", err);
    }
  }

  function newServer(): McpServer {
    const server = new McpServer(
      { name: "herald-test-peer", version: "1.0.0" },
      {
        capabilities: { tasks: { requests: { tools: { call: {} } }, cancel: {}, list: {} } },
        taskStore: store,
        taskMessageQueue: queue,
      },
    );
    server.experimental.tasks.registerToolTask(
      "research",
      {
        description: "Deterministic long-running research (test peer)",
        inputSchema: {
          prompt: z.string(),
          title: z.string().optional(),
          durationMs: z.number().int().min(0).optional(),
          mode: z.enum(["complete", "fail", "input", "ignore-cancel"]).optional(),
        },
        execution: { taskSupport: "required" },
      },
      {
        async createTask(args, extra) {
          const created = await extra.taskStore.createTask({
            ttl: Math.min(extra.taskRequestedTtl ?? 3_600_000, 3_600_000),
          });
          const task: PeerTask = {
            taskId: created.taskId,
            args: { prompt: args.prompt, title: args.title },
            mode: args.mode ?? options.mode,
            answers: [],
          };
          tasks.set(task.taskId, task);
          // The question rides the tasks/result side channel of this session, as MCP 2025-11-25 tasks specify.
          const ask = (taskId: string) =>
            server.server.request(
              {
                method: "elicitation/create",
                params: {
                  mode: "form",
                  message: options.question,
                  requestedSchema: {
                    type: "object",
                    properties: { answer: { type: "string", title: "Answer" } },
                    required: ["answer"],
                  },
                },
              },
              ElicitResultSchema,
              { relatedTask: { taskId }, timeout: 3_600_000 },
            );
          void work(task, args.durationMs ?? options.durationMs, ask);
          return { task: created };
        },
        getTask: async (_args, extra) => extra.taskStore.getTask(extra.taskId),
        getTaskResult: async (_args, extra) => (await extra.taskStore.getTaskResult(extra.taskId)) as CallToolResult,
      },
    );
    return server;
  }

  const sessions = new Map<string, StreamableHTTPServerTransport>();

  async function readJson(req: IncomingMessage): Promise<unknown> {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const text = Buffer.concat(chunks).toString("utf8");
    return text ? JSON.parse(text) : undefined;
  }

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const sessionId = req.headers["mcp-session-id"] as string | undefined;
    const body = req.method === "POST" ? await readJson(req) : undefined;
    const messages = (Array.isArray(body) ? body : body ? [body] : []) as {
      method?: string;
      id?: unknown;
      params?: { taskId?: string };
    }[];
    const requests = messages.filter((m) => typeof m.method === "string" && m.id !== undefined);
    const inject =
      failures.remaining > 0 && requests.some((m) => !failures.methods || failures.methods.includes(m.method!))
        ? (failures.kind ?? "http")
        : null;
    for (const m of requests)
      calls.push({ method: m.method!, taskId: m.params?.taskId, failed: inject !== null, headers: req.headers });
    if (inject) {
      failures.remaining--;
      if (inject === "http") {
        res.writeHead(500, { "content-type": "text/plain" }).end("injected failure");
      } else {
        const replies = requests.map((m) =>
          inject === "rpc"
            ? { jsonrpc: "2.0", id: m.id, error: { code: -32603, message: "injected failure" } }
            : { jsonrpc: "2.0", id: m.id, result: failures.reply?.(m.params) ?? {} },
        );
        res
          .writeHead(200, { "content-type": "application/json" })
          .end(JSON.stringify(Array.isArray(body) ? replies : replies[0]));
      }
      return;
    }
    let transport = sessionId ? sessions.get(sessionId) : undefined;
    if (!transport) {
      if (sessionId || !requests.some((m) => m.method === "initialize")) {
        res
          .writeHead(404, { "content-type": "application/json" })
          .end(JSON.stringify({ jsonrpc: "2.0", id: null, error: { code: -32001, message: "Session not found" } }));
        return;
      }
      const created = new StreamableHTTPServerTransport({
        sessionIdGenerator: () => randomUUID(),
        onsessioninitialized: (id) => void sessions.set(id, created),
        onsessionclosed: (id) => void sessions.delete(id),
      });
      await newServer().connect(created);
      transport = created;
    }
    await transport.handleRequest(req, res, body);
  }

  const http = createServer((req, res) => {
    handle(req, res).catch((err) => {
      if (!res.headersSent) res.writeHead(500).end(String(err));
      else res.end();
    });
  });
  await new Promise<void>((resolve) => http.listen(0, "127.0.0.1", resolve));
  const { port } = http.address() as AddressInfo;

  return {
    url: `http://127.0.0.1:${port}/mcp`,
    options,
    tasks,
    calls,
    taskState: (taskId) => inner.getTask(taskId),
    failNext(count, o = {}) {
      failures = { ...o, remaining: count };
    },
    async stop() {
      stopped = true;
      for (const t of timers) clearTimeout(t);
      timers.clear();
      await Promise.all([...sessions.values()].map((t) => t.close().catch(() => {})));
      sessions.clear();
      inner.cleanup();
      http.closeAllConnections();
      await new Promise<void>((resolve) => http.close(() => resolve()));
    },
  };
}
