import { env, EnvError } from "@/lib/config/env";
import { readPage, type PageText } from "@/lib/research/read-page";
import { RobotsCache } from "@/lib/research/robots";
import { searchProviderFromEnv, searchWeb, trustedSearchOrigins, type SearchStatus } from "@/lib/research/search";
import type { SearchProvider, SearchResult } from "@/lib/research/search-types";
import { noneProvider } from "@/lib/research/search-none";
import { log } from "@/lib/util/log";

/**
 * What one research section reads: its queries searched (within the task's
 * search budget), the unread results ranked by how many of the section's words
 * they carry, and the best of them read until the section has its share of
 * the task's source budget. Nothing here writes: the pages go back to the
 * driver, which hands them to the step's commit (task_source).
 */

/** Pages one section reads at most: enough to cross-check a claim, few enough to read within a lease. */
export const SECTION_MAX_SOURCES = 5;
/** Results asked of a provider per query. */
const RESULTS_PER_QUERY = 8;
/** Pages read at the same time. */
const READ_CONCURRENCY = 3;

/**
 * robots.txt for every research step this process runs. A task's steps are
 * separate claims (often on one worker, not always), so a cache per step asked
 * a site again for every section; one per task would have to live in the
 * database (a row per origin per task) to outlast its claim. Kept in memory it
 * costs nothing to write: at most 500 origins for an hour each (a failing one
 * for five minutes), so a task asks a site at most once per worker that runs
 * its steps, and tasks reading the same sites share the answer.
 */
const robots = new RobotsCache({}, { ttlMs: 60 * 60_000, maxEntries: 500 });

/** A page the task already read (an earlier step's commit). */
export interface KnownSource {
  n: number;
  url: string;
  finalUrl: string;
  title: string;
  site: string;
  /** The start of its stored text, when the runtime loaded it: a later section may write from it again. */
  text?: string;
}

export interface GatherInput {
  queries: string[];
  /** Words that make a result relevant (section title and topic). */
  terms: string[];
  known: readonly KnownSource[];
  /** Searches the task already made (earlier steps). */
  searchesSoFar: number;
  /** Sections still to write, this one included: the source budget left is shared among them. */
  sectionsLeft: number;
  /** Pages the account may still read this hour (HERALD_LIMIT_PAGES_PER_HOUR); unbounded when not given. */
  accountPagesLeft?: number;
  signal: AbortSignal;
  /** A progress line for people (host wording). */
  announce?: (kind: "search" | "read", detail: string) => Promise<void>;
  /** Counts a search durably before it is made (StepContext.countSearch); false: make no more. */
  countSearch?: () => Promise<boolean>;
  /** Tests inject a provider; default HERALD_SEARCH_PROVIDER. */
  provider?: SearchProvider;
}

export interface GatherResult {
  pages: PageText[];
  searches: number;
  /** `ok` when a search answered (even with nothing); else why no search could be made. */
  status: SearchStatus | "budget";
}

function providerFromEnv(): SearchProvider {
  try {
    return searchProviderFromEnv();
  } catch (err) {
    // checkEnv refuses this at process start; a worker that got this far researches without sources.
    if (err instanceof EnvError) {
      log("research").error({ reason: err.message }, "search provider misconfigured");
      return noneProvider;
    }
    throw err;
  }
}

/** Lower-case words of 3+ letters and Han bigrams: what a result or a sentence is scored by. */
export function termsOf(text: string): string[] {
  const out = new Set<string>();
  for (const m of text.toLowerCase().matchAll(/[\p{L}\p{N}]+/gu)) {
    const w = m[0];
    if (/\p{Script=Han}/u.test(w)) {
      const han = [...w].filter((c) => /\p{Script=Han}/u.test(c));
      for (let i = 0; i + 1 < han.length; i++) out.add(han[i] + han[i + 1]);
    } else if (w.length >= 3 && !STOP.has(w)) out.add(w);
  }
  return [...out];
}

const STOP = new Set([
  "the",
  "and",
  "for",
  "with",
  "that",
  "this",
  "from",
  "are",
  "was",
  "were",
  "into",
  "about",
  "what",
  "which",
  "how",
  "its",
  "their",
  "research",
  "report",
]);

const hits = (text: string, terms: readonly string[]) => {
  const hay = text.toLowerCase();
  return terms.reduce((s, t) => (hay.includes(t) ? s + 1 : s), 0);
};
const score = (r: SearchResult, terms: readonly string[]) => hits(`${r.title} ${r.snippet}`, terms);

/**
 * Pages earlier sections read that this one may write from too, when its own
 * search found fewer than two new ones: those whose text carries most of the
 * section's words, at most `room` of them.
 */
export function rereadable(
  known: readonly KnownSource[],
  terms: readonly string[],
  room: number,
): (KnownSource & { text: string })[] {
  return known
    .filter((s): s is KnownSource & { text: string } => typeof s.text === "string" && s.text.length > 0)
    .map((s) => ({ s, score: hits(`${s.title} ${s.text}`, terms) }))
    .filter((x) => x.score > 0)
    .sort((a, b) => b.score - a.score || a.s.n - b.s.n)
    .slice(0, Math.max(0, room))
    .map((x) => x.s)
    .sort((a, b) => a.n - b.n);
}

export async function gatherSources(input: GatherInput): Promise<GatherResult> {
  const maxSources = env("HERALD_RESEARCH_MAX_SOURCES");
  const maxSearches = env("HERALD_RESEARCH_MAX_SEARCHES");
  const left = Math.max(0, maxSources - input.known.length);
  const want = Math.min(
    SECTION_MAX_SOURCES,
    left,
    Math.ceil(left / Math.max(1, input.sectionsLeft)),
    input.accountPagesLeft ?? Infinity,
  );
  const provider = input.provider ?? providerFromEnv();
  if (want === 0) return { pages: [], searches: 0, status: "budget" };
  if (provider.name === "none") return { pages: [], searches: 0, status: "off" };

  const readUrls = new Set(input.known.flatMap((s) => [s.url, s.finalUrl]));
  const candidates: { r: SearchResult; order: number }[] = [];
  let searches = 0;
  let status: GatherResult["status"] = "budget";
  for (const query of input.queries) {
    if (candidates.length >= want * 2) break;
    if (input.searchesSoFar + searches >= maxSearches) break;
    if (input.countSearch && !(await input.countSearch())) break;
    await input.announce?.("search", query);
    searches++;
    const found = await searchWeb(provider, query, { limit: RESULTS_PER_QUERY, signal: input.signal });
    status = found.status;
    if (found.status !== "ok") break;
    for (const r of found.results) {
      if (readUrls.has(r.url) || candidates.some((c) => c.r.url === r.url)) continue;
      candidates.push({ r, order: candidates.length });
    }
  }
  // Most relevant first; the provider's own order breaks ties (it ranked them already).
  candidates.sort((a, b) => score(b.r, input.terms) - score(a.r, input.terms) || a.order - b.order);

  const pages: PageText[] = [];
  const trustedOrigins = trustedSearchOrigins();
  let next = 0;
  while (pages.length < want && next < candidates.length) {
    const batch = candidates.slice(next, next + Math.min(READ_CONCURRENCY, want - pages.length));
    next += batch.length;
    await input.announce?.("read", [...new Set(batch.map((c) => hostOf(c.r.url)))].join(", "));
    const read = await Promise.all(
      batch.map((c) =>
        readPage(c.r.url, { robots, trustedOrigins, signal: input.signal }).catch((err: unknown) => {
          if (input.signal.aborted) throw err;
          log("research").info({ reason: (err as { reason?: string })?.reason ?? "error" }, "page not read");
          return null;
        }),
      ),
    );
    for (const page of read) {
      // Two result URLs may redirect to one page: it is read, but counted and cited once.
      if (!page || readUrls.has(page.finalUrl) || pages.length >= want) continue;
      readUrls.add(page.url).add(page.finalUrl);
      pages.push(page);
    }
  }
  return { pages, searches, status };
}

function hostOf(url: string): string {
  try {
    return new URL(url).hostname;
  } catch {
    return url.slice(0, 60);
  }
}
