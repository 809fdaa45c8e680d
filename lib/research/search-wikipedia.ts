import { langOfText } from "@/lib/i18n/detect";
import { apiUrl, fetchJson, SearchProtocolError, tidyResults } from "./search-http";
import type { SearchOptions, SearchProvider, SearchResult } from "./search-types";

/**
 * Wikipedia through the MediaWiki Action API (`list=search`): keyless, so a
 * fresh install with internet access researches with real sources. The
 * edition follows the query's language (zh.wikipedia.org for a Chinese
 * query); `baseUrl` (HERALD_SEARCH_URL) replaces it for mirrors and tests.
 */
export function wikipediaProvider(baseUrl?: string): SearchProvider {
  return {
    name: "wikipedia",
    async search(query: string, opts: SearchOptions): Promise<SearchResult[]> {
      const base = baseUrl ?? `https://${langOfText(query)}.wikipedia.org`;
      const url = apiUrl(base, "/w/api.php", {
        action: "query",
        list: "search",
        srsearch: query,
        srlimit: String(Math.min(Math.max(opts.limit, 1), 50)),
        srprop: "snippet",
        format: "json",
        formatversion: "2",
        utf8: "1",
      });
      const body = (await fetchJson(url, { signal: opts.signal })) as { query?: { search?: unknown } };
      const hits = body?.query?.search;
      if (!Array.isArray(hits)) throw new SearchProtocolError("no query.search in the answer");
      return tidyResults(
        hits.map((h: { title?: unknown; snippet?: unknown }) => ({
          url: typeof h?.title === "string" ? pageUrl(base, h.title) : null,
          title: h?.title,
          snippet: h?.snippet,
        })),
        opts.limit,
      );
    },
  };
}

/** A page's canonical URL: `/wiki/` and the title with underscores for spaces, percent-encoded. */
export function pageUrl(base: string, title: string): string {
  return `${base.replace(/\/+$/, "")}/wiki/${encodeURIComponent(title.replace(/ /g, "_")).replace(/%2F/g, "/").replace(/%3A/g, ":")}`;
}
