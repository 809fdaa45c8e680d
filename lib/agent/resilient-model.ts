import type { LanguageModelV3, LanguageModelV3StreamPart } from "@ai-sdk/provider";
import { Breaker, breakerFor } from "@/lib/util/breaker";
import { backoffMs } from "@/lib/util/backoff";
import { sleep } from "@/lib/util/sleep";
import { ModelTimeoutError, policyFor, ProviderWaitError, verdictOf, type CallMode, type RetryPolicy } from "./retry";
import { usageOf, type TokenUsage } from "./usage";
import { log } from "@/lib/util/log";

/**
 * Puts the retry policy (lib/agent/retry.ts), the per-request timeout, the
 * endpoint's circuit breaker and usage accounting around a model. Wrap the
 * counted model (`resilientModel(countedModel(m, count), …)`): every retry is a
 * request sent and is counted, a call the breaker refuses is not sent and is not.
 */
export interface ResilientOptions {
  mode: CallMode;
  /** Called once per answered request that reported usage; a failure here is logged, never fails the call. */
  onUsage?: (usage: TokenUsage) => Promise<void> | void;
  /** Overrides (tests); default: the policy from env and this process's breaker for the endpoint. */
  policy?: Partial<RetryPolicy>;
  breaker?: Breaker;
}

export function resilientModel(inner: LanguageModelV3, opts: ResilientOptions): LanguageModelV3 {
  const policy: RetryPolicy = { ...policyFor(opts.mode), ...opts.policy };
  const breaker = opts.breaker ?? breakerFor(`${inner.provider}:${inner.modelId}`);
  const record = async (u: Parameters<typeof usageOf>[0]) => {
    const usage = opts.onUsage ? usageOf(u, inner.modelId) : null;
    if (!usage) return;
    try {
      await opts.onUsage!(usage);
    } catch (err) {
      log("model").error({ err }, "could not record usage");
    }
  };

  return {
    specificationVersion: "v3",
    provider: inner.provider,
    modelId: inner.modelId,
    get supportedUrls() {
      return inner.supportedUrls;
    },
    doGenerate: (options) =>
      withRetries(
        policy,
        { silenceMs: policy.answerTimeoutMs, streaming: false },
        breaker,
        options.abortSignal,
        async (signal, timer) => {
          timer.arm();
          const result = await inner.doGenerate({ ...options, abortSignal: signal });
          timer.disarm();
          await record(result.usage);
          return result;
        },
      ),
    doStream: (options) =>
      withRetries(
        policy,
        { silenceMs: policy.timeoutMs, streaming: true },
        breaker,
        options.abortSignal,
        async (signal, timer) => {
          timer.arm();
          const result = await inner.doStream({ ...options, abortSignal: signal });
          return { ...result, stream: watchStream(result.stream, timer, record) };
        },
      ),
  };
}

/** One request's silence timer: `arm` (re)starts it, `disarm` stops it; firing aborts the request. */
interface SilenceTimer {
  arm(): void;
  disarm(): void;
  readonly fired: ModelTimeoutError | null;
  onFire(fn: (err: ModelTimeoutError) => void): void;
}

function silenceTimer(ms: number, abort: AbortController): SilenceTimer {
  let timer: NodeJS.Timeout | null = null;
  let fired: ModelTimeoutError | null = null;
  const listeners: ((err: ModelTimeoutError) => void)[] = [];
  return {
    arm() {
      if (timer) clearTimeout(timer);
      timer = setTimeout(() => {
        fired = new ModelTimeoutError(ms);
        abort.abort(fired);
        for (const l of listeners) l(fired);
      }, ms);
    },
    disarm() {
      if (timer) clearTimeout(timer);
      timer = null;
    },
    get fired() {
      return fired;
    },
    onFire(fn) {
      listeners.push(fn);
    },
  };
}

/**
 * Re-arms the silence timer on every part, reports usage from the finish part,
 * and turns a stall into a `ModelTimeoutError` part of the stream (the SDK
 * surfaces it as the call's error) instead of a stream that never ends.
 */
function watchStream(
  source: ReadableStream<LanguageModelV3StreamPart>,
  timer: SilenceTimer,
  record: (u: Extract<LanguageModelV3StreamPart, { type: "finish" }>["usage"]) => Promise<void>,
): ReadableStream<LanguageModelV3StreamPart> {
  const reader = source.getReader();
  let done = false;
  return new ReadableStream<LanguageModelV3StreamPart>({
    start(controller) {
      timer.onFire((err) => {
        if (done) return;
        done = true;
        controller.error(err);
        reader.cancel(err).catch(() => {});
      });
    },
    async pull(controller) {
      try {
        const next = await reader.read();
        if (done) return;
        if (next.done) {
          done = true;
          timer.disarm();
          controller.close();
          return;
        }
        timer.arm();
        if (next.value.type === "finish") await record(next.value.usage);
        controller.enqueue(next.value);
      } catch (err) {
        if (done) return;
        done = true;
        timer.disarm();
        controller.error(timer.fired ?? err);
      }
    },
    cancel(reason) {
      done = true;
      timer.disarm();
      return reader.cancel(reason);
    },
  });
}

/**
 * Sends one request per try until one is answered, a failure is final, or the
 * budget is spent. Background calls give the wait back to the caller
 * (`ProviderWaitError`) instead of sleeping.
 */
async function withRetries<T>(
  policy: RetryPolicy,
  request: { silenceMs: number; streaming: boolean },
  breaker: Breaker,
  caller: AbortSignal | undefined,
  send: (signal: AbortSignal, timer: SilenceTimer) => Promise<T>,
): Promise<T> {
  const deadline = Date.now() + policy.budgetMs;
  for (let attempt = 0; ; attempt++) {
    const admission = breaker.admit();
    if (!admission.ok) {
      if (policy.mode === "background") throw new ProviderWaitError(admission.retryInMs, new Error("circuit open"));
      if (Date.now() + admission.retryInMs > deadline)
        throw new ProviderWaitError(admission.retryInMs, new Error("circuit open"));
      await sleep(admission.retryInMs, caller);
      continue;
    }
    const abort = new AbortController();
    const forward = () => abort.abort(caller!.reason);
    caller?.addEventListener("abort", forward, { once: true });
    const timer = silenceTimer(request.silenceMs, abort);
    try {
      const result = await send(abort.signal, timer);
      breaker.success();
      // A stream is still being read: the caller's abort must keep reaching its connection.
      if (!request.streaming) caller?.removeEventListener("abort", forward);
      return result;
    } catch (raw) {
      caller?.removeEventListener("abort", forward);
      timer.disarm();
      // Our own timeout aborts the fetch; callers should see the stall, not an AbortError.
      const err = timer.fired ?? raw;
      if (caller?.aborted) {
        breaker.release();
        throw err;
      }
      const verdict = verdictOf(err);
      if (!verdict.retryable) {
        breaker.release();
        throw err;
      }
      breaker.failure(verdict.retryAfterMs);
      if (policy.mode === "background") throw new ProviderWaitError(verdict.retryAfterMs, err);
      const wait = verdict.retryAfterMs ?? backoffMs(attempt);
      if (Date.now() + wait > deadline) throw err;
      await sleep(wait, caller);
    }
  }
}
