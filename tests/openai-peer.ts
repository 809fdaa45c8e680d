import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo, Socket } from "node:net";

/**
 * An OpenAI-compatible chat endpoint (`POST /v1/chat/completions`, streamed SSE
 * and plain JSON; `GET /v1/models`) on 127.0.0.1, for provider conformance
 * tests. Real HTTP, so the AI SDK's own provider parses what it answers. Its
 * switchable behaviours are the ways real providers differ or fail.
 *
 * API (stable: extend, don't rename):
 *   const peer = await startOpenAIPeer({ ...behaviours });
 *   peer.baseURL                  "http://127.0.0.1:<port>/v1" (OPENAI_BASE_URL)
 *   peer.behaviours               mutable; later requests use the new values
 *   peer.requests                 every request received, in order (PeerRequest)
 *   peer.failNext(n, failure, only?) the next n chat requests (that `only` accepts) fail: {status: 429, retryAfter?} ·
 *                                 {status: 5xx} · {stall: true} (accepted, never answered) ·
 *                                 {stallAfterHeaders: true} (200 + SSE headers, then nothing)
 *   peer.script(...replies)       the next chat requests answer these replies instead of the default brain
 *   peer.waitForRequests(n)       resolves once n requests arrived
 *   peer.stop()                   closes the server and every held socket
 *
 * Default brain (what a well-behaved model would answer), by the last message:
 *   - a research plan prompt ("[herald:research-plan]"): prose as real models write it — a lead-in line
 *     "Here's a plan…:", a blank line, then `1. **Early origins** — …` … four sections (REALISTIC_PLAN);
 *     with `response_format: json_schema` an object shaped by that schema (plan titles for string arrays);
 *   - a research section prompt ("[herald:research-step]"): a paragraph;
 *   - a narration prompt ("[herald:task-notification]"): a short update;
 *   - a tool result last: an acknowledgement ("It's running in the background…");
 *   - a user turn asking to research/investigate/look into something, when `start_background_task` is offered:
 *     a tool call (two calls with `parallelToolCalls`; text first with `textBeforeToolCalls`);
 *   - anything else: a short greeting.
 */

export interface PeerBehaviours {
  /** Mistral/Gemma chat templates: roles must alternate user/assistant after the system prompt, tool
   *  results must follow the assistant message whose calls they answer; otherwise 400. */
  strictAlternation: boolean;
  /** Refuse requests that carry tools: "vllm" (no --enable-auto-tool-choice), "llamacpp" (no --jinja). */
  refuseTools: "vllm" | "llamacpp" | null;
  /** Refuse `response_format` (endpoints without JSON mode) with a 400. */
  refuseResponseFormat: boolean;
  /** Characters per streamed text delta. */
  textChunk: number;
  /** Characters of tool-call arguments per streamed delta (arguments split across chunks). */
  argsChunk: number;
  /** Text streamed before the tool calls of the same response. */
  textBeforeToolCalls: string | null;
  /** Research requests become two tool calls in one response. */
  parallelToolCalls: boolean;
  /** Reasoning deltas before the answer, in this field (vLLM/DeepSeek: reasoning_content; gpt-oss on some hosts: reasoning). */
  reasoning: "reasoning_content" | "reasoning" | null;
  /** Usage chunk at the end of a stream when the request sent stream_options.include_usage. */
  usage: boolean;
  /** Streams end after the content without any finish_reason (then [DONE]). */
  omitFinishReason: boolean;
  /** Streams are cut (socket destroyed, no [DONE]) after this many content chunks; null = never. */
  cutStreamAfterChunks: number | null;
  /** An outage: while set, every chat request fails this way (after any failNext ones); null = up. */
  outage: PeerFailure | null;
}

export type PeerFailure =
  | { status: 429; retryAfter?: string | number }
  | { status: 500 | 502 | 503 | 504 }
  | { stall: true }
  | { stallAfterHeaders: true };

export interface PeerToolCall {
  name: string;
  arguments: Record<string, unknown> | string;
}

export interface PeerReply {
  text?: string;
  reasoning?: string;
  toolCalls?: PeerToolCall[];
}

export interface PeerMessage {
  role: string;
  content: unknown;
  tool_calls?: { id: string; type: string; function: { name: string; arguments: string } }[];
  tool_call_id?: string;
  [key: string]: unknown;
}

export interface PeerRequest {
  path: string;
  headers: Record<string, string | string[] | undefined>;
  /** The parsed JSON body (null when it was not JSON). */
  body: Record<string, unknown> | null;
  messages: PeerMessage[];
  stream: boolean;
  /** Names of the tools offered. */
  tools: string[];
  /** The tool definitions as sent (function.parameters are the JSON schemas). */
  toolDefinitions: {
    type: string;
    function: { name: string; description?: string; parameters?: unknown; strict?: boolean };
  }[];
  streamOptions: unknown;
  responseFormat: unknown;
  /** How the peer answered: "ok", "cut", "stall", or the HTTP status of a refusal. */
  outcome: string;
}

export interface OpenAIPeer {
  baseURL: string;
  behaviours: PeerBehaviours;
  requests: PeerRequest[];
  failNext(count: number, failure: PeerFailure, only?: (request: PeerRequest) => boolean): void;
  script(...replies: PeerReply[]): void;
  waitForRequests(count: number, timeoutMs?: number): Promise<void>;
  stop(): Promise<void>;
}

export const DEFAULT_BEHAVIOURS: PeerBehaviours = {
  strictAlternation: false,
  refuseTools: null,
  refuseResponseFormat: false,
  textChunk: 6,
  argsChunk: 7,
  textBeforeToolCalls: null,
  parallelToolCalls: false,
  reasoning: null,
  usage: true,
  omitFinishReason: false,
  cutStreamAfterChunks: null,
  outage: null,
};

export const PLAN_TITLES = ["Early origins", "Industrial scale-up", "Regulation and markets", "Outlook"];

/** A plan the way chat models write one: lead-in, blank line, numbered bold titles with dashes and glosses. */
export const REALISTIC_PLAN = [
  "Here's a plan for the report, in four sections:",
  "",
  "1. **Early origins** — where the idea came from and the first experiments.",
  "2. **Industrial scale-up** — how production grew and who led it.",
  "3. **Regulation and markets** — the rules and the money that shaped it.",
  "4. **Outlook** — open questions and what to watch next.",
  "",
  "Let me know if you'd like a different focus.",
].join("\n");

export const SECTION_TEXT =
  "The record shows a steady line of work: early experiments, then engineering, then scale. Each stage built on the last.";
export const ACK_TEXT = "It's running in the background; I'll tell you here when it's done.";
export const GREETING_TEXT = "Hello! How can I help you today?";
export const NARRATION_TEXT = "Your background task has an update: the report is ready to read.";
/** A lead-in tests may set as `textBeforeToolCalls`. */
export const TEXT_BEFORE_TOOLS = "Let me start that research.";

const ALTERNATION_ERROR = "Conversation roles must alternate user/assistant/user/assistant/...";
const VLLM_TOOLS_ERROR = '"auto" tool choice requires --enable-auto-tool-choice and --tool-call-parser to be set';
const LLAMACPP_TOOLS_ERROR = "tools param requires --jinja flag";
const RESEARCH_ASK = /\b(research|investigate|look into|report on|study)\b/i;

function textOf(content: unknown): string {
  if (typeof content === "string") return content;
  if (Array.isArray(content))
    return content
      .map((p) => (p && typeof p === "object" && "text" in p ? String((p as { text: unknown }).text) : ""))
      .join("");
  return "";
}

/** The 400 a strict chat template raises, or null when the history is acceptable. */
export function alternationError(messages: PeerMessage[]): string | null {
  let i = 0;
  while (i < messages.length && (messages[i].role === "system" || messages[i].role === "developer")) i++;
  let expect: "user" | "assistant" = "user";
  let pending = new Set<string>();
  for (; i < messages.length; i++) {
    const m = messages[i];
    if (m.role === "system" || m.role === "developer") return "System message must be at the beginning.";
    if (m.role === "tool") {
      if (!m.tool_call_id || !pending.has(m.tool_call_id))
        return "Tool message must answer a tool call of the preceding assistant message.";
      pending.delete(m.tool_call_id);
      if (pending.size === 0) expect = "assistant";
      continue;
    }
    if (pending.size > 0) return "Every tool call must be answered before the next message.";
    if (m.role !== expect) return ALTERNATION_ERROR;
    if (m.role === "assistant" && m.tool_calls?.length) {
      pending = new Set(m.tool_calls.map((c) => c.id));
      continue;
    }
    expect = m.role === "user" ? "assistant" : "user";
  }
  return null;
}

/** An instance of a JSON schema, for json_schema response formats (plan titles fill string arrays). */
function instanceOf(schema: unknown, key = ""): unknown {
  const s = (schema ?? {}) as Record<string, unknown>;
  const type = Array.isArray(s.type) ? s.type.find((t) => t !== "null") : s.type;
  if (Array.isArray(s.anyOf))
    return instanceOf(
      s.anyOf.find((x) => (x as { type?: unknown }).type !== "null"),
      key,
    );
  if (Array.isArray(s.enum)) return s.enum[0];
  if (type === "object" || s.properties) {
    const props = (s.properties ?? {}) as Record<string, unknown>;
    return Object.fromEntries(Object.entries(props).map(([k, v]) => [k, instanceOf(v, k)]));
  }
  if (type === "array") {
    const n = Math.max(PLAN_TITLES.length, Number(s.minItems ?? 0));
    return Array.from({ length: Math.min(n, Number(s.maxItems ?? n)) }, (_, i) => {
      const item = instanceOf(s.items, key);
      if (typeof item === "string") return PLAN_TITLES[i % PLAN_TITLES.length];
      if (item && typeof item === "object" && "title" in item)
        return { ...item, title: PLAN_TITLES[i % PLAN_TITLES.length] };
      return item;
    });
  }
  if (type === "integer" || type === "number") return 1;
  if (type === "boolean") return false;
  return key === "title" ? PLAN_TITLES[0] : SECTION_TEXT;
}

function defaultReply(req: PeerRequest, b: PeerBehaviours): PeerReply {
  const last = req.messages.at(-1);
  const lastUser = [...req.messages].reverse().find((m) => m.role === "user");
  const text = textOf(lastUser?.content);
  const format = req.responseFormat as { type?: string; json_schema?: { schema?: unknown } } | null;
  if (format?.type === "json_schema") return { text: JSON.stringify(instanceOf(format.json_schema?.schema)) };
  if (text.includes("[herald:research-plan]"))
    return { text: format?.type === "json_object" ? JSON.stringify({ sections: PLAN_TITLES }) : REALISTIC_PLAN };
  if (text.includes("[herald:research-step]")) return { text: SECTION_TEXT };
  if (last?.role === "tool") return { text: ACK_TEXT };
  if (text.includes("[herald:task-notification]")) return { text: NARRATION_TEXT };
  if (req.tools.includes("start_background_task") && RESEARCH_ASK.test(text)) {
    const topic = text.replace(/^.*?\b(?:research|investigate|look into|report on|study)\b\s*/i, "").trim() || text;
    const topics = b.parallelToolCalls ? topic.split(/\s+and\s+/i).slice(0, 2) : [topic];
    if (b.parallelToolCalls && topics.length < 2) topics.push(`${topic} (follow-up)`);
    return {
      text: b.textBeforeToolCalls ?? undefined,
      toolCalls: topics.map((t) => ({
        name: "start_background_task",
        arguments: { title: t.slice(0, 80), prompt: t },
      })),
    };
  }
  return { text: GREETING_TEXT };
}

function chunks(s: string, size: number): string[] {
  const out: string[] = [];
  for (let i = 0; i < s.length; i += Math.max(1, size)) out.push(s.slice(i, i + Math.max(1, size)));
  return out;
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    let data = "";
    req.setEncoding("utf8");
    req.on("data", (c: string) => (data += c));
    req.on("end", () => resolve(data));
    req.on("error", reject);
  });
}

function sendJson(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  res.writeHead(status, { "content-type": "application/json", ...headers });
  res.end(JSON.stringify(body));
}

export async function startOpenAIPeer(initial: Partial<PeerBehaviours> = {}): Promise<OpenAIPeer> {
  const behaviours: PeerBehaviours = { ...DEFAULT_BEHAVIOURS, ...initial };
  const requests: PeerRequest[] = [];
  // A test aims a failure at its own request: the worker may send other rows' requests to the same peer meanwhile.
  const failures: { failure: PeerFailure; only?: (request: PeerRequest) => boolean }[] = [];
  const scripted: PeerReply[] = [];
  const sockets = new Set<Socket>();
  const waiters = new Set<() => void>();
  let seq = 0;

  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    const url = new URL(req.url ?? "/", "http://peer");
    if (req.method === "GET" && url.pathname === "/v1/models") {
      return sendJson(res, 200, { object: "list", data: [{ id: "peer-model", object: "model", owned_by: "peer" }] });
    }
    if (req.method !== "POST" || url.pathname !== "/v1/chat/completions") {
      return sendJson(res, 404, { error: { message: "not found", type: "invalid_request_error" } });
    }
    const raw = await readBody(req);
    let body: Record<string, unknown> | null = null;
    try {
      body = JSON.parse(raw) as Record<string, unknown>;
    } catch {
      body = null;
    }
    const toolDefinitions = (Array.isArray(body?.tools) ? body.tools : []) as PeerRequest["toolDefinitions"];
    const record: PeerRequest = {
      path: url.pathname,
      headers: req.headers,
      body,
      messages: (Array.isArray(body?.messages) ? body.messages : []) as PeerMessage[],
      stream: body?.stream === true,
      tools: toolDefinitions.map((t) => t.function?.name),
      toolDefinitions,
      streamOptions: body?.stream_options ?? null,
      responseFormat: body?.response_format ?? null,
      outcome: "ok",
    };
    requests.push(record);
    for (const w of waiters) w();
    const refuse = (status: number, message: string, headers: Record<string, string> = {}) => {
      record.outcome = String(status);
      sendJson(
        res,
        status,
        { error: { message, type: status === 429 ? "rate_limit_error" : "invalid_request_error", code: status } },
        headers,
      );
    };

    if (!body) return refuse(400, "body is not JSON");
    const aimed = failures.findIndex((f) => !f.only || f.only(record));
    const failure = (aimed >= 0 ? failures.splice(aimed, 1)[0].failure : null) ?? behaviours.outage ?? undefined;
    if (failure && "stall" in failure) {
      record.outcome = "stall";
      return;
    }
    if (failure && "stallAfterHeaders" in failure) {
      record.outcome = "stall";
      res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" });
      res.flushHeaders();
      return;
    }
    if (failure && failure.status === 429) {
      const headers: Record<string, string> =
        failure.retryAfter === undefined ? {} : { "retry-after": String(failure.retryAfter) };
      return refuse(429, "Rate limit reached for requests", headers);
    }
    if (failure) return refuse(failure.status, "The server had an error while processing your request.");
    if (behaviours.refuseTools && record.tools.length > 0) {
      return refuse(400, behaviours.refuseTools === "vllm" ? VLLM_TOOLS_ERROR : LLAMACPP_TOOLS_ERROR);
    }
    if (behaviours.refuseResponseFormat && record.responseFormat)
      return refuse(400, "response_format is not supported by this server");
    if (behaviours.strictAlternation) {
      const error = alternationError(record.messages);
      if (error) return refuse(400, error);
    }

    const reply = scripted.shift() ?? defaultReply(record, behaviours);
    const id = `chatcmpl-peer-${++seq}`;
    const created = Math.floor(Date.now() / 1000);
    const model = typeof body.model === "string" ? body.model : "peer-model";
    const reasoning =
      reply.reasoning ?? (behaviours.reasoning ? "The user wants an answer; keep it short." : undefined);
    const calls = (reply.toolCalls ?? []).map((c, i) => ({
      id: `call_${seq}_${i}`,
      type: "function",
      function: {
        name: c.name,
        arguments: typeof c.arguments === "string" ? c.arguments : JSON.stringify(c.arguments),
      },
    }));
    const finish = calls.length ? "tool_calls" : "stop";
    const promptTokens = Math.ceil(raw.length / 4);
    const completionTokens =
      Math.ceil(((reply.text ?? "").length + calls.reduce((n, c) => n + c.function.arguments.length, 0)) / 4) + 1;
    const usage = {
      prompt_tokens: promptTokens,
      completion_tokens: completionTokens,
      total_tokens: promptTokens + completionTokens,
    };

    if (!record.stream) {
      const message: Record<string, unknown> = { role: "assistant", content: reply.text ?? null };
      if (calls.length) message.tool_calls = calls;
      if (reasoning && behaviours.reasoning) message[behaviours.reasoning] = reasoning;
      return sendJson(res, 200, {
        id,
        object: "chat.completion",
        created,
        model,
        choices: [{ index: 0, message, finish_reason: finish }],
        usage,
      });
    }

    res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache", connection: "keep-alive" });
    const frame = (delta: Record<string, unknown>, finishReason: string | null = null) =>
      `data: ${JSON.stringify({ id, object: "chat.completion.chunk", created, model, choices: [{ index: 0, delta, finish_reason: finishReason }] })}\n\n`;
    const parts: string[] = [frame({ role: "assistant", content: "" })];
    if (reasoning && behaviours.reasoning)
      for (const c of chunks(reasoning, behaviours.textChunk)) parts.push(frame({ [behaviours.reasoning]: c }));
    for (const c of chunks(reply.text ?? "", behaviours.textChunk)) parts.push(frame({ content: c }));
    calls.forEach((call, index) => {
      parts.push(
        frame({
          tool_calls: [{ index, id: call.id, type: "function", function: { name: call.function.name, arguments: "" } }],
        }),
      );
      for (const a of chunks(call.function.arguments, behaviours.argsChunk))
        parts.push(frame({ tool_calls: [{ index, function: { arguments: a } }] }));
    });
    const cutAt = behaviours.cutStreamAfterChunks;
    if (cutAt !== null && parts.length > cutAt) {
      record.outcome = "cut";
      res.write(parts.slice(0, cutAt).join(""), () => res.socket?.destroy());
      return;
    }
    if (!behaviours.omitFinishReason) parts.push(frame({}, finish));
    const includeUsage = (record.streamOptions as { include_usage?: unknown } | null)?.include_usage === true;
    if (behaviours.usage && includeUsage) {
      parts.push(
        `data: ${JSON.stringify({ id, object: "chat.completion.chunk", created, model, choices: [], usage })}\n\n`,
      );
    }
    parts.push("data: [DONE]\n\n");
    // One write per chunk, so the client's parser sees them arrive separately.
    for (const p of parts) res.write(p);
    res.end();
  };

  const server = createServer((req, res) => {
    handle(req, res).catch((err: unknown) => {
      if (!res.headersSent) sendJson(res, 500, { error: { message: String(err), type: "server_error" } });
      else res.destroy();
    });
  });
  server.on("connection", (s) => {
    sockets.add(s);
    s.on("close", () => sockets.delete(s));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;

  return {
    baseURL: `http://127.0.0.1:${port}/v1`,
    behaviours,
    requests,
    failNext(count, failure, only) {
      for (let i = 0; i < count; i++) failures.push({ failure, only });
    },
    script(...replies) {
      scripted.push(...replies);
    },
    waitForRequests(count, timeoutMs = 10_000) {
      if (requests.length >= count) return Promise.resolve();
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => {
          waiters.delete(check);
          reject(new Error(`openai peer: ${requests.length} of ${count} requests after ${timeoutMs} ms`));
        }, timeoutMs);
        const check = () => {
          if (requests.length < count) return;
          clearTimeout(timer);
          waiters.delete(check);
          resolve();
        };
        waiters.add(check);
      });
    },
    async stop() {
      for (const s of sockets) s.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
