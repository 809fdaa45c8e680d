import { APICallError, RetryError } from "ai";
import { log } from "@/lib/util/log";
import { DriverProtocolError } from "./protocol";
import { ERROR_CATEGORIES, type ErrorCategory } from "./categories";

const NETWORK_CODES = new Set([
  "ECONNREFUSED",
  "ECONNRESET",
  "ENOTFOUND",
  "EAI_AGAIN",
  "ETIMEDOUT",
  "EHOSTUNREACH",
  "ENETUNREACH",
  "EPIPE",
]);

export function classifyError(err: unknown): ErrorCategory {
  if (err instanceof DriverProtocolError) return "protocol";
  if (RetryError.isInstance(err)) return classifyError(err.lastError);
  // lib/agent/retry.ts: a wait for the provider is about its last failure; an open breaker has none of its own.
  if ((err as { name?: string } | null)?.name === "ProviderWaitError") {
    const inner = classifyError((err as { cause?: unknown }).cause);
    return inner === "internal" ? "model_unavailable" : inner;
  }
  if (APICallError.isInstance(err)) {
    const status = err.statusCode;
    if (status === 429) return "model_rate_limited";
    if (status !== undefined && status >= 400 && status < 500 && status !== 408) return "model_refused";
    return "model_unavailable";
  }
  const e = err as { name?: string; code?: string; cause?: unknown; message?: string } | null;
  if (e?.name === "TimeoutError") return "timeout";
  const code = e?.code ?? (e?.cause as { code?: string } | undefined)?.code;
  if (typeof code === "string" && (NETWORK_CODES.has(code) || code.startsWith("UND_ERR_CONNECT"))) return "unreachable";
  if (e?.message === "fetch failed") return "unreachable";
  // @langchain/langgraph-sdk wraps a failed fetch in its own error, without the cause.
  if (e?.name === "ConnectionError") return "unreachable";
  return "internal";
}

/**
 * Logs the raw error under `context` (one JSON line with the ids of the work in
 * progress, lib/util/log.ts) and returns the sentence that may be stored and shown.
 */
export function publicError(err: unknown, context: string, category: ErrorCategory = classifyError(err)): string {
  log().error({ err, context, category }, `[${context}] ${category}`);
  return ERROR_CATEGORIES[category];
}
