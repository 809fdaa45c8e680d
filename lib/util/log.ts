import { AsyncLocalStorage } from "node:async_hooks";
import { randomUUID } from "node:crypto";
import pino, { type Logger } from "pino";
import { prettyFactory } from "pino-pretty";
import { env } from "@/lib/config/env";

/**
 * The one structured logger (pino, JSON lines). Every line carries the ids of
 * the work it belongs to — set once per unit of work with `withLogContext` and
 * picked up by every line logged inside it, however deep (publicError included).
 *
 * What a line may carry is a whitelist, because a log is read by more people
 * than the rows are: ids, counts, durations, states and the raw error of a
 * failure (credentials and addresses masked), request paths without their
 * tokens (`redactPath`). Any other string field is replaced by
 * "[redacted]", so a caller passing a message body, a prompt or a header by
 * mistake leaks nothing (lib/util/log.test.ts).
 */
export interface LogIds {
  accountId?: string;
  conversationId?: string;
  taskId?: string;
  runId?: string;
  noticeId?: string;
  traceId?: string;
  workerId?: string;
  loop?: string;
}

const ID_KEYS = new Set<string>([
  "accountId",
  "conversationId",
  "taskId",
  "runId",
  "noticeId",
  "traceId",
  "workerId",
  "loop",
]);
/** Short code-chosen words (never user text) that lines may carry besides ids. */
const WORD_KEYS = new Set<string>([
  "context",
  "category",
  "child",
  "state",
  "status",
  "transition",
  "reason",
  "signal",
  "event",
  "process",
  "log",
  "channel",
  "method",
  "ref",
]);

/** Request paths, kept only as `redactPath` leaves them. */
const PATH_KEYS = new Set<string>(["path"]);

const context = new AsyncLocalStorage<LogIds>();

/** Runs `fn` with `ids` bound to every line it logs (nested contexts add to the outer one). */
export function withLogContext<T>(ids: LogIds, fn: () => T): T {
  const outer = context.getStore();
  return context.run({ traceId: outer?.traceId ?? randomUUID(), ...outer, ...ids }, fn);
}

export function logContext(): LogIds {
  return context.getStore() ?? {};
}

/** The longest error text kept; also what keeps the masking patterns below linear in practice. */
const MAX_TEXT = 4_000;

/** Masks credentials inside raw error text (connection strings, bearer tokens, API keys, key=value secrets). */
export function maskSecrets(text: string): string {
  return (
    text
      .slice(0, MAX_TEXT)
      .replace(/([a-z][a-z0-9+.-]{0,20}:\/\/)[^\s/@:]{1,200}:[^\s/@]{1,200}@/gi, "$1[redacted]@")
      .replace(/\b(bearer|basic)\s+[A-Za-z0-9._~+/=-]{4,}/gi, "$1 [redacted]")
      .replace(/\b(sk|pk|rk)-[A-Za-z0-9_-]{6,}/g, "$1-[redacted]")
      .replace(
        /\b(password|passwd|pwd|secret|token|api[_-]?key|authorization)(["']?\s{0,3}[=:]\s{0,3}["']?)[^\s"',;&]{1,200}/gi,
        "$1$2[redacted]",
      )
      // A link in an error (a failed mail's reset link, a fetch's URL) keeps its origin and its path without tokens.
      .replace(
        /\b(https?:\/\/[^\s/?#"'<>@]{1,255})([/?#][^\s"'<>()]{0,2000})?/gi,
        (_, origin: string, rest?: string) => origin + (rest ? redactPath(rest) : ""),
      )
      // An SMTP reply or a library's message can name the recipient: no address reaches a log.
      .replace(/[A-Za-z0-9._%+-]{1,64}@[A-Za-z0-9-]{1,63}(?:\.[A-Za-z0-9-]{1,63}){0,8}/g, "[address]")
  );
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
// Route words and file names ("conversations", "reset-password", "main-app.js"): lowercase, short.
const ROUTE_WORD = /^_?[a-z0-9][a-z0-9]{0,31}(?:[-_.][a-z0-9]{1,31}){0,6}$/;
// The segment after these is a credential whatever it looks like (share links, better-auth's reset and verify links).
const TOKEN_BEFORE = new Set(["share", "reset-password", "verify-email"]);

/**
 * A request's path as a log may carry it: no query or fragment (unsubscribe and
 * reset tokens ride there), the segment after a token-bearing route word
 * redacted, and every other segment that is neither an id nor a short route
 * word redacted too (a token in a route nobody listed here).
 */
export function redactPath(url: string): string {
  let path: string;
  try {
    path = new URL(url, "http://path.invalid").pathname;
  } catch {
    path = url.split(/[?#]/, 1)[0];
  }
  const segments = path.slice(0, 1_000).split("/");
  return segments
    .map((seg, i) =>
      seg === "" || (!TOKEN_BEFORE.has(segments[i - 1]) && (UUID.test(seg) || ROUTE_WORD.test(seg)))
        ? seg
        : ":redacted",
    )
    .join("/");
}

function serializeError(err: unknown): unknown {
  if (!(err instanceof Error)) return typeof err === "string" ? maskSecrets(err) : String(err).slice(0, 200);
  const e = err as Error & { code?: unknown; cause?: unknown };
  return {
    type: e.name,
    ...(typeof e.code === "string" || typeof e.code === "number" ? { code: e.code } : {}),
    message: maskSecrets(e.message ?? ""),
    stack: maskSecrets(e.stack ?? ""),
    ...(e.cause !== undefined ? { cause: serializeError(e.cause) } : {}),
  };
}

/** Keeps ids, code words, numbers and booleans; redacts every other string or object. */
export function whitelist(fields: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(fields)) {
    if (k === "err") out.err = serializeError(v);
    else if (typeof v === "number" || typeof v === "boolean" || v === null || v === undefined) out[k] = v;
    else if (typeof v === "string" && ID_KEYS.has(k)) out[k] = v.slice(0, 200);
    else if (typeof v === "string" && WORD_KEYS.has(k)) out[k] = maskSecrets(v).slice(0, 200);
    else if (typeof v === "string" && PATH_KEYS.has(k)) out[k] = redactPath(v).slice(0, 200);
    else out[k] = "[redacted]";
  }
  return out;
}

export type LogSink = (line: string, level: number) => void;

// Errors and warnings go to stderr and the rest to stdout, through console so a
// line never interleaves with a library's own console output mid-line.
const consoleSink: LogSink = (line, level) => (level >= 40 ? console.error(line) : console.log(line));

function defaultSink(): LogSink {
  if (!process.stdout.isTTY) return consoleSink;
  // A person at a terminal reads the same lines formatted; pipes and files get JSON.
  const pretty = prettyFactory({ colorize: true, translateTime: "SYS:HH:MM:ss.l", ignore: "pid,hostname" });
  return (line, level) => consoleSink(pretty(line).trimEnd(), level);
}

/** A logger writing to `sink` (tests pass their own; the process logger uses `defaultSink`). */
export function createLogger(sink: LogSink = defaultSink(), level: string = env("HERALD_LOG_LEVEL")): Logger {
  return pino(
    {
      level,
      base: { pid: process.pid },
      messageKey: "msg",
      mixin: () => ({ ...context.getStore() }),
      formatters: { log: (fields) => whitelist(fields) },
      // Nothing but whitelisted fields: the err key is serialized by `whitelist`.
      serializers: { err: (e: unknown) => e },
    },
    {
      write(line: string) {
        const level = Number(/"level":(\d+)/.exec(line)?.[1] ?? 30);
        sink(line.endsWith("\n") ? line.slice(0, -1) : line, level);
      },
    },
  );
}

let root: Logger | null = null;

/** The process logger, optionally with a component name (`log("worker").info(…)`). */
export function log(component?: string): Logger {
  root ??= createLogger();
  return component ? root.child({ context: component }) : root;
}
