import { apiUrl, fetchJson, SearchProtocolError, tidyResults } from "./search-http";
import type { SearchOptions, SearchProvider, SearchResult } from "./search-types";

/**
 * Brave Search: `GET {base}/res/v1/web/search?q=…&count=…` with
 * `X-Subscription-Token: <key>` → `{web: {results: [{url, title, description}]}}`
 * (an answer without a `web` part means no web results).
 */
export function braveProvider(apiKey: string, baseUrl = "https://api.search.brave.com"): SearchProvider {
  return {
    name: "brave",
    async search(query: string, opts: SearchOptions): Promise<SearchResult[]> {
      const url = apiUrl(baseUrl, "/res/v1/web/search", {
        q: query,
        count: String(Math.min(Math.max(opts.limit, 1), 20)),
      });
      const body = (await fetchJson(url, { headers: { "x-subscription-token": apiKey }, signal: opts.signal })) as {
        type?: unknown;
        web?: { results?: unknown };
      };
      if (body === null || typeof body !== "object") throw new SearchProtocolError("not an object");
      const results = body.web?.results ?? [];
      if (!Array.isArray(results)) throw new SearchProtocolError("web.results is not a list");
      return tidyResults(
        results.map((r: { url?: unknown; title?: unknown; description?: unknown }) => ({
          url: r?.url,
          title: r?.title,
          snippet: r?.description,
        })),
        opts.limit,
      );
    },
  };
}
