import { apiUrl, fetchJson, SearchProtocolError, tidyResults } from "./search-http";
import type { SearchOptions, SearchProvider, SearchResult } from "./search-types";

/**
 * A self-hosted SearXNG: `GET {base}/search?q=…&format=json` → `{results:
 * [{url, title, content}]}`. The instance must list `json` under
 * `search.formats` in its settings.yml (it answers 403 otherwise).
 */
export function searxngProvider(baseUrl: string): SearchProvider {
  return {
    name: "searxng",
    async search(query: string, opts: SearchOptions): Promise<SearchResult[]> {
      const url = apiUrl(baseUrl, "/search", { q: query, format: "json" });
      const body = (await fetchJson(url, { signal: opts.signal })) as { results?: unknown };
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
