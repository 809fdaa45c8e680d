import { FetchError, safeFetch, type SafeFetchOptions } from "./safe-fetch";
import type { RobotsCache } from "./robots";

/** A page as a research step read it. */
export interface PageText {
  url: string;
  finalUrl: string;
  title: string;
  site: string;
  /** Main text, bounded (lib/research/extract.ts). */
  text: string;
  hash: string;
}

export interface ReadPageOptions extends Omit<SafeFetchOptions, "beforeHop"> {
  /** robots.txt per origin for this task; every hop's origin is asked. */
  robots: RobotsCache;
}

/**
 * Fetches a remote-chosen URL through the safe fetcher, honours robots.txt on
 * every hop, and reduces the body to its main text. Throws `FetchError`
 * (`robots`, `type` and `empty` besides the fetcher's own reasons).
 */
export async function readPage(url: string, opts: ReadPageOptions): Promise<PageText> {
  // Loaded on the first page read, not at every process start (lib/drivers/mcp-config.ts says what that saves).
  const { extractText, mayRead } = await import("./extract");
  const { robots, ...fetchOptions } = opts;
  const res = await safeFetch(url, {
    ...fetchOptions,
    acceptType: mayRead,
    beforeHop: async (hop) => {
      if (!(await robots.allowed(hop)))
        throw new FetchError("robots", `${hop.origin} disallows ${hop.pathname} in robots.txt`);
    },
  });
  const page = extractText(res.contentType, res.body, res.finalUrl);
  if (!page) throw new FetchError("type", `${res.contentType || "no content type"} is not read`);
  if (!page.text) throw new FetchError("empty", "no text");
  return { url, finalUrl: res.finalUrl, ...page };
}
