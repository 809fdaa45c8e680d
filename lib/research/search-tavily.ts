import { apiUrl, fetchJson, SearchProtocolError, tidyResults } from "./search-http";
import type { SearchOptions, SearchProvider, SearchResult } from "./search-types";

/**
 * Tavily: `POST {base}/search` with `Authorization: Bearer <key>` and
 * `{query, max_results, search_depth}` → `{results: [{url, title, content}]}`.
 */
export function tavilyProvider(apiKey: string, baseUrl = "https://api.tavily.com"): SearchProvider {
  return {
    name: "tavily",
    async search(query: string, opts: SearchOptions): Promise<SearchResult[]> {
      const body = (await fetchJson(apiUrl(baseUrl, "/search"), {
        method: "POST",
        headers: { authorization: `Bearer ${apiKey}` },
        body: {
          query,
          max_results: Math.min(Math.max(opts.limit, 1), 20),
          search_depth: "basic",
          include_answer: false,
          include_raw_content: false,
        },
        signal: opts.signal,
      })) as { results?: unknown };
      if (!Array.isArray(body?.results)) throw new SearchProtocolError("no results in the answer");
      return tidyResults(
        body.results.map((r: { url?: unknown; title?: unknown; content?: unknown }) => ({
          url: r?.url,
          title: r?.title,
          snippet: r?.content,
        })),
        opts.limit,
      );
    },
  };
}
