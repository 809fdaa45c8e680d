import { APICallError } from "@ai-sdk/provider";
import { env } from "@/lib/config/env";
import {
  BACKOFF_BASE_MS,
  BACKOFF_CAP_MS,
  isRetryableStatus,
  isTransientNetworkError,
  retryAfterOf,
} from "@/lib/util/backoff";

/**
 * The one retry policy of every model call (chat turns, narration, research
 * steps): which failures are worth another try, how long to wait before it
 * (the provider's `Retry-After` first, else exponential backoff with jitter:
 * lib/util/backoff.ts, shared with web search), and how long a request may stay
 * silent before it counts as stalled.
 *
 * Interactive calls (a user is watching a turn) retry in place within a short
 * budget. Background calls never sleep in place: the first retryable failure
 * becomes a `ProviderWaitError`, and the task executor defers the step
 * (lib/runtime/execute-task.ts) so the wait holds no lease and survives a worker
 * restart; the long background budget is measured there, from the database clock.
 */

export type CallMode = "interactive" | "background";

export interface RetryPolicy {
  mode: CallMode;
  /** Streamed requests (chat turns, narration): the longest wait for the response headers or the next chunk. */
  timeoutMs: number;
  /** Non-streamed requests (research steps): the longest wait for the whole answer. */
  answerTimeoutMs: number;
  /** Interactive: total time from the first try after which no retry starts. */
  budgetMs: number;
}

export function policyFor(mode: CallMode): RetryPolicy {
  return {
    mode,
    timeoutMs: env("HERALD_MODEL_TIMEOUT_MS"),
    answerTimeoutMs: env("HERALD_MODEL_ANSWER_TIMEOUT_MS"),
    budgetMs:
      mode === "interactive" ? env("HERALD_MODEL_RETRY_INTERACTIVE_MS") : env("HERALD_MODEL_RETRY_BACKGROUND_MS"),
  };
}

/** The provider sent nothing for `timeoutMs` (accepted and stalled, or never answered). */
export class ModelTimeoutError extends Error {
  override name = "TimeoutError";
  constructor(readonly timeoutMs: number) {
    super(`the model provider sent nothing for ${timeoutMs} ms`);
  }
}

/**
 * A background call failed in a way worth retrying: the caller should come back
 * after `retryAfterMs` (the provider's or the breaker's word) or its own backoff.
 */
export class ProviderWaitError extends Error {
  override name = "ProviderWaitError";
  constructor(
    readonly retryAfterMs: number | null,
    override readonly cause: unknown,
  ) {
    super("the model provider is unavailable; waiting to retry");
  }
}

export interface Verdict {
  retryable: boolean;
  /** What the provider asked for (Retry-After / retry-after-ms), if it did. */
  retryAfterMs: number | null;
}

/**
 * Whether another try may succeed. Refusals (400, 401, 403, 404, 422) will not
 * change by waiting; rate limits, server errors, stalls and dropped connections may.
 */
export function verdictOf(err: unknown, now = Date.now()): Verdict {
  if (err instanceof ProviderWaitError) return { retryable: true, retryAfterMs: err.retryAfterMs };
  if (err instanceof ModelTimeoutError) return { retryable: true, retryAfterMs: null };
  if (APICallError.isInstance(err)) {
    const status = err.statusCode;
    const retryAfterMs = retryAfterOf(err.responseHeaders, now);
    if (status === undefined) return { retryable: true, retryAfterMs };
    return { retryable: isRetryableStatus(status), retryAfterMs };
  }
  if (isTransientNetworkError(err)) return { retryable: true, retryAfterMs: null };
  const e = err as { name?: string } | null;
  // A body cut mid-way reaches the SDK as unparsable JSON: the connection failed, not the model.
  if (e?.name === "AI_JSONParseError" || e?.name === "AI_EmptyResponseBodyError")
    return { retryable: true, retryAfterMs: null };
  return { retryable: false, retryAfterMs: null };
}

/**
 * A background task's next wait after it has already waited `waitedMs` for the
 * provider: about half the time waited so far (so probes thin out geometrically
 * through a long outage), between the base and the cap, with jitter. The
 * provider's own advice wins when it gave one.
 */
export function backgroundWaitMs(waitedMs: number, retryAfterMs: number | null, random = Math.random): number {
  if (retryAfterMs !== null) return Math.max(retryAfterMs, 50);
  const step = Math.min(BACKOFF_CAP_MS, Math.max(BACKOFF_BASE_MS, waitedMs / 2));
  return Math.round(step / 2 + random() * (step / 2));
}
