/**
 * The waiting half of the one retry policy shared by every call to a remote
 * service (models in lib/agent/retry.ts, web search in lib/research/): which
 * HTTP answers and socket errors are worth another try, how long the remote
 * asked us to wait (`Retry-After`), and exponential backoff with jitter.
 * What a caller does with a verdict (retry in place, defer the step) stays
 * with the caller.
 */

/** First backoff wait and its ceiling (before jitter). */
export const BACKOFF_BASE_MS = 1_000;
export const BACKOFF_CAP_MS = 60_000;

const RETRYABLE_STATUS = new Set([408, 409, 425, 429, 500, 502, 503, 504, 520, 522, 524, 529]);
const NETWORK_CODES = new Set([
  "ECONNREFUSED",
  "ECONNRESET",
  "ETIMEDOUT",
  "EHOSTUNREACH",
  "ENETUNREACH",
  "EPIPE",
  "EAI_AGAIN",
  "UND_ERR_SOCKET",
]);

/** Rate limits and server errors may pass by waiting; refusals (400, 401, 403, 404, 422) will not. */
export function isRetryableStatus(status: number): boolean {
  return RETRYABLE_STATUS.has(status) || status >= 500;
}

/** A dropped or refused connection (Node's socket codes, undici's `fetch failed`/`terminated`). */
export function isTransientNetworkError(err: unknown): boolean {
  const e = err as { code?: string; cause?: unknown; message?: string } | null;
  const code = e?.code ?? (e?.cause as { code?: string } | undefined)?.code;
  if (typeof code === "string" && (NETWORK_CODES.has(code) || code.startsWith("UND_ERR"))) return true;
  return e?.message === "fetch failed" || e?.message === "terminated";
}

/** Longest remote-requested wait we take at its word; a larger one is clamped (a typo must not park work for days). */
const RETRY_AFTER_MAX_MS = 3_600_000;

/**
 * `Retry-After` as seconds or an HTTP-date, or OpenAI's `retry-after-ms`.
 * Unparseable or past values mean "no advice" (null), never "retry at once forever".
 */
export function retryAfterOf(headers: Record<string, string> | undefined, now = Date.now()): number | null {
  if (!headers) return null;
  const get = (name: string) =>
    Object.entries(headers)
      .find(([k]) => k.toLowerCase() === name)?.[1]
      ?.trim();
  const ms = get("retry-after-ms");
  if (ms && /^\d+(\.\d+)?$/.test(ms)) return Math.min(Number(ms), RETRY_AFTER_MAX_MS);
  const value = get("retry-after");
  if (!value) return null;
  if (/^\d+(\.\d+)?$/.test(value)) return Math.min(Number(value) * 1000, RETRY_AFTER_MAX_MS);
  const at = Date.parse(value);
  if (Number.isNaN(at)) return null;
  const wait = at - now;
  return wait > 0 ? Math.min(wait, RETRY_AFTER_MAX_MS) : 0;
}

/**
 * Exponential backoff with "equal jitter": half the step is fixed, half random,
 * so synchronised callers spread out but none retries at once.
 */
export function backoffMs(attempt: number, random = Math.random): number {
  const step = Math.min(BACKOFF_CAP_MS, BACKOFF_BASE_MS * 2 ** Math.min(attempt, 16));
  return Math.round(step / 2 + random() * (step / 2));
}
