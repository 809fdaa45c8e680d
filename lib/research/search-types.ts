/** One web search hit: where it is and what the provider says about it (untrusted text). */
export interface SearchResult {
  url: string;
  title: string;
  snippet: string;
}

export interface SearchOptions {
  limit: number;
  signal?: AbortSignal;
}

/**
 * A web search provider (lib/research/search-*.ts). `search` throws on any
 * failure (`SearchHttpError` carries the status and Retry-After);
 * `searchWeb()` in search.ts applies the retry policy and the breaker.
 */
export interface SearchProvider {
  /** `wikipedia`, `searxng`, … — the breaker's key and what logs name. */
  readonly name: string;
  search(query: string, opts: SearchOptions): Promise<SearchResult[]>;
}
