import { env, EnvError } from "@/lib/config/env";
import { backoffMs, isTransientNetworkError } from "@/lib/util/backoff";
import { sleep } from "@/lib/util/sleep";
import { breakerFor, type Breaker } from "@/lib/util/breaker";
import { log } from "@/lib/util/log";
import { braveProvider } from "./search-brave";
import { SearchHttpError } from "./search-http";
import { noneProvider } from "./search-none";
import { searxngProvider } from "./search-searxng";
import { tavilyProvider } from "./search-tavily";
import type { SearchProvider, SearchResult } from "./search-types";
import { wikipediaProvider } from "./search-wikipedia";

/** The provider HERALD_SEARCH_PROVIDER names, at HERALD_SEARCH_URL when set. Throws EnvError when its URL or key is missing. */
export function searchProviderFromEnv(): SearchProvider {
  const base = env("HERALD_SEARCH_URL");
  const name = env("HERALD_SEARCH_PROVIDER");
  switch (name) {
    case "none":
      return noneProvider;
    case "wikipedia":
      return wikipediaProvider(base);
    case "searxng":
      if (!base) throw new EnvError("HERALD_SEARCH_PROVIDER=searxng needs HERALD_SEARCH_URL (the instance's base URL)");
      return searxngProvider(base);
    case "tavily": {
      const key = env("TAVILY_API_KEY");
      if (!key) throw new EnvError("HERALD_SEARCH_PROVIDER=tavily needs TAVILY_API_KEY");
      return tavilyProvider(key, base);
    }
    case "brave": {
      const key = env("BRAVE_SEARCH_API_KEY");
      if (!key) throw new EnvError("HERALD_SEARCH_PROVIDER=brave needs BRAVE_SEARCH_API_KEY");
      return braveProvider(key, base);
    }
  }
}

/** Origins the operator configured for search: trusted by the fetcher like SMTP_URL. */
export function trustedSearchOrigins(): string[] {
  const base = env("HERALD_SEARCH_URL");
  return base ? [new URL(base).origin] : [];
}

export type SearchStatus = "ok" | "off" | "unavailable";

export interface SearchOutcome {
  results: SearchResult[];
  /** `unavailable`: the provider failed or its breaker is open; `off`: no provider. Either way the step goes on without sources. */
  status: SearchStatus;
  /** When unavailable: what the provider or the breaker asked us to wait, if anything. */
  retryAfterMs: number | null;
}

export interface SearchWebOptions {
  limit: number;
  signal?: AbortSignal;
  /** Time after the first try within which a retry may start (default 15 s). */
  budgetMs?: number;
  maxAttempts?: number;
  breaker?: Breaker;
}

const SEARCH_RETRY_BUDGET_MS = 15_000;
const SEARCH_MAX_ATTEMPTS = 3;

/**
 * One search under the shared remote-call policy (lib/util/backoff.ts and
 * breaker.ts, as model calls): 429 and 5xx answers and dropped connections are
 * retried after the provider's Retry-After or a jittered backoff, within a short
 * budget; refusals (401, 403, 400) and a name that does not resolve are not.
 * A provider that stays down never throws: the outcome is `unavailable` with no
 * results, so a research step goes on without sources instead of failing.
 */
export async function searchWeb(
  provider: SearchProvider,
  query: string,
  opts: SearchWebOptions,
): Promise<SearchOutcome> {
  if (provider.name === "none") return { results: [], status: "off", retryAfterMs: null };
  const breaker = opts.breaker ?? breakerFor(`search:${provider.name}`);
  const deadline = Date.now() + (opts.budgetMs ?? SEARCH_RETRY_BUDGET_MS);
  const maxAttempts = opts.maxAttempts ?? SEARCH_MAX_ATTEMPTS;
  let retryAfterMs: number | null = null;
  for (let attempt = 0; attempt < maxAttempts; attempt++) {
    const admission = breaker.admit();
    if (!admission.ok) return { results: [], status: "unavailable", retryAfterMs: admission.retryInMs };
    try {
      const results = await provider.search(query, { limit: opts.limit, signal: opts.signal });
      breaker.success();
      return { results, status: "ok", retryAfterMs: null };
    } catch (err) {
      if (opts.signal?.aborted) {
        breaker.release();
        throw err;
      }
      const verdict = verdictOf(err);
      log(`search:${provider.name}`).warn({ attempt, reason: verdict.reason }, "web search failed");
      if (!verdict.countsAsOutage) breaker.release();
      else breaker.failure(verdict.retryAfterMs);
      retryAfterMs = verdict.retryAfterMs;
      if (!verdict.retryable || attempt + 1 >= maxAttempts) break;
      const wait = verdict.retryAfterMs ?? backoffMs(attempt);
      if (Date.now() + wait > deadline) break;
      await sleep(wait, opts.signal);
    }
  }
  return { results: [], status: "unavailable", retryAfterMs };
}

interface SearchVerdict {
  retryable: boolean;
  /** Does this failure say the provider is down (the breaker counts it), rather than that this request was refused? */
  countsAsOutage: boolean;
  retryAfterMs: number | null;
  reason: string;
}

function verdictOf(err: unknown): SearchVerdict {
  if (err instanceof SearchHttpError) {
    return {
      retryable: err.retryable,
      countsAsOutage: err.retryable,
      retryAfterMs: err.retryAfterMs,
      reason: `status ${err.status}`,
    };
  }
  const e = err as { name?: string; cause?: { code?: string } } | null;
  const code = e?.cause?.code;
  // No such name (or no network at all): another try within seconds finds the same, but the breaker remembers it.
  if (code === "ENOTFOUND") return { retryable: false, countsAsOutage: true, retryAfterMs: null, reason: "ENOTFOUND" };
  if (e?.name === "TimeoutError")
    return { retryable: true, countsAsOutage: true, retryAfterMs: null, reason: "timeout" };
  if (isTransientNetworkError(err))
    return { retryable: true, countsAsOutage: true, retryAfterMs: null, reason: code ?? "network" };
  return { retryable: false, countsAsOutage: false, retryAfterMs: null, reason: e?.name ?? "error" };
}
