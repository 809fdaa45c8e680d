import { isRetryableStatus, retryAfterOf } from "@/lib/util/backoff";
import { userAgent } from "./safe-fetch";
import type { SearchResult } from "./search-types";

/**
 * The HTTP exchange every search provider shares. The provider's URL is the
 * operator's (HERALD_SEARCH_URL or the provider's public API), trusted like
 * SMTP_URL, so it goes through plain fetch rather than the address-checking
 * fetcher that remote-chosen URLs take.
 */

export const SEARCH_TIMEOUT_MS = 10_000;
const SNIPPET_MAX_CHARS = 500;
const TITLE_MAX_CHARS = 300;
const SEARCH_MAX_BYTES = 2 * 1024 * 1024;

/** The provider answered with an error status. */
export class SearchHttpError extends Error {
  override name = "SearchHttpError";
  constructor(
    readonly status: number,
    readonly retryAfterMs: number | null,
  ) {
    super(`the search provider answered ${status}`);
  }
  get retryable(): boolean {
    return isRetryableStatus(this.status);
  }
}

/** The provider answered 2xx with something that is not its API's shape: waiting will not fix it. */
export class SearchProtocolError extends Error {
  override name = "SearchProtocolError";
}

/** Joins a base URL (with or without a path or trailing slash) and an API path. */
export function apiUrl(base: string, path: string, query: Record<string, string> = {}): URL {
  const url = new URL(base.replace(/\/+$/, "") + path);
  for (const [k, v] of Object.entries(query)) url.searchParams.set(k, v);
  return url;
}

export async function fetchJson(
  url: URL,
  init: { method?: "GET" | "POST"; headers?: Record<string, string>; body?: unknown; signal?: AbortSignal },
): Promise<unknown> {
  const timeout = AbortSignal.timeout(SEARCH_TIMEOUT_MS);
  const res = await fetch(url, {
    method: init.method ?? "GET",
    headers: {
      "user-agent": userAgent(),
      accept: "application/json",
      ...(init.body !== undefined ? { "content-type": "application/json" } : {}),
      ...init.headers,
    },
    body: init.body === undefined ? undefined : JSON.stringify(init.body),
    signal: init.signal ? AbortSignal.any([init.signal, timeout]) : timeout,
    redirect: "error",
  });
  if (!res.ok) {
    await res.body?.cancel().catch(() => {});
    throw new SearchHttpError(res.status, retryAfterOf(Object.fromEntries(res.headers)));
  }
  const length = Number(res.headers.get("content-length") ?? 0);
  if (length > SEARCH_MAX_BYTES) throw new SearchProtocolError(`a ${length}-byte answer`);
  const text = await res.text();
  try {
    return JSON.parse(text);
  } catch {
    throw new SearchProtocolError("the answer is not JSON");
  }
}

const ENTITIES: Record<string, string> = { amp: "&", lt: "<", gt: ">", quot: '"', apos: "'", nbsp: " " };

/** A provider's snippet or title (Wikipedia and Brave mark matches up in HTML) as plain, bounded text. */
export function plainText(html: unknown, max = SNIPPET_MAX_CHARS): string {
  if (typeof html !== "string") return "";
  return html
    .slice(0, max * 4)
    .replace(/<[^<>]{0,500}>/g, "")
    .replace(/&(#\d{1,7}|#x[0-9a-f]{1,6}|[a-z]{2,6});/gi, (whole, name: string) => {
      const lower = name.toLowerCase();
      if (lower.startsWith("#x")) return safeCodePoint(parseInt(lower.slice(2), 16)) ?? whole;
      if (lower.startsWith("#")) return safeCodePoint(Number(lower.slice(1))) ?? whole;
      return ENTITIES[lower] ?? whole;
    })
    .replace(/\s+/g, " ")
    .trim()
    .slice(0, max);
}

function safeCodePoint(n: number): string | null {
  return Number.isInteger(n) && n > 0 && n <= 0x10ffff ? String.fromCodePoint(n) : null;
}

/** Keeps http(s) results with a URL, bounded text, each URL once, at most `limit`. */
export function tidyResults(raw: { url: unknown; title: unknown; snippet: unknown }[], limit: number): SearchResult[] {
  const seen = new Set<string>();
  const out: SearchResult[] = [];
  for (const r of raw) {
    if (out.length >= limit) break;
    if (typeof r.url !== "string") continue;
    let url: URL;
    try {
      url = new URL(r.url);
    } catch {
      continue;
    }
    if (url.protocol !== "http:" && url.protocol !== "https:") continue;
    url.hash = "";
    if (seen.has(url.href)) continue;
    seen.add(url.href);
    out.push({
      url: url.href,
      title: plainText(r.title, TITLE_MAX_CHARS) || url.hostname,
      snippet: plainText(r.snippet),
    });
  }
  return out;
}
