import { FetchError, safeFetch, USER_AGENT_TOKEN, type SafeFetchOptions } from "./safe-fetch";

/**
 * robots.txt as RFC 9309 reads it: the group naming our product token (else
 * `*`), `Allow`/`Disallow` with `*` and `$`, the longest match wins and Allow
 * wins a tie. Matching is linear in the pattern's pieces (indexOf, no regular
 * expression built from remote text).
 */

interface Rule {
  allow: boolean;
  pattern: string;
}

export interface RobotsRules {
  rules: Rule[];
}

/** RFC 9309 asks parsers to read at least 500 KiB; the rest is ignored. */
const ROBOTS_MAX_BYTES = 512 * 1024;
const LINE_MAX = 2_000;

const ALLOW_ALL: RobotsRules = { rules: [] };
const DISALLOW_ALL: RobotsRules = { rules: [{ allow: false, pattern: "/" }] };

/** Percent-encodes what a URL path would: patterns and paths compare in one form. */
function encoded(s: string): string {
  return s.replace(/[^\x21-\x7e]/g, (c) => encodeURIComponent(c));
}

export function parseRobots(text: string, token = USER_AGENT_TOKEN): RobotsRules {
  const ours: Rule[] = [];
  const star: Rule[] = [];
  let agents: string[] = [];
  let inRules = false;
  let matchedOurs = false;
  for (const raw of text.split(/\r\n|\r|\n/)) {
    const line = raw.slice(0, LINE_MAX).replace(/#.*$/, "").trim();
    const colon = line.indexOf(":");
    if (colon <= 0) continue;
    const key = line.slice(0, colon).trim().toLowerCase();
    const value = line.slice(colon + 1).trim();
    if (key === "user-agent") {
      if (inRules) agents = [];
      inRules = false;
      agents.push(value.split("/")[0]!.trim().toLowerCase());
      continue;
    }
    if (key !== "allow" && key !== "disallow") continue;
    inRules = true;
    if (value === "") continue; // an empty Disallow allows everything: no rule
    const rule = { allow: key === "allow", pattern: encoded(value) };
    if (agents.includes(token.toLowerCase())) {
      matchedOurs = true;
      ours.push(rule);
    } else if (agents.includes("*")) {
      star.push(rule);
    }
  }
  return { rules: matchedOurs ? ours : star };
}

/** Does `pattern` (with `*` and a final `$`) match the start of `path`? */
function matches(pattern: string, path: string): boolean {
  const anchored = pattern.endsWith("$");
  const pieces = (anchored ? pattern.slice(0, -1) : pattern).split("*");
  const first = pieces[0]!;
  if (!path.startsWith(first)) return false;
  let at = first.length;
  if (pieces.length === 1) return !anchored || at === path.length;
  for (let i = 1; i < pieces.length - 1; i++) {
    const found = path.indexOf(pieces[i]!, at);
    if (found < 0) return false;
    at = found + pieces[i]!.length;
  }
  const last = pieces[pieces.length - 1]!;
  if (anchored) return path.length - last.length >= at && path.endsWith(last);
  return path.indexOf(last, at) >= 0;
}

export function isAllowed(rules: RobotsRules, url: URL): boolean {
  const path = encoded(decodeSafe(url.pathname)) + url.search;
  if (url.pathname === "/robots.txt") return true;
  let best: Rule | null = null;
  for (const rule of rules.rules) {
    if (!matches(rule.pattern, path)) continue;
    if (
      !best ||
      rule.pattern.length > best.pattern.length ||
      (rule.pattern.length === best.pattern.length && rule.allow)
    )
      best = rule;
  }
  return best ? best.allow : true;
}

function decodeSafe(s: string): string {
  try {
    return decodeURI(s);
  } catch {
    return s;
  }
}

export interface RobotsCacheLimits {
  /** How long a fetched file stands (RFC 9309 §2.4 allows up to 24 h). */
  ttlMs?: number;
  /** How long an unreachable or failing one disallows before it is asked again. */
  failureTtlMs?: number;
  /** Origins kept; the least recently used goes first. */
  maxEntries?: number;
  /** Pattern characters kept over all origins: a hostile 500 KiB file must not make the cache a memory sink. */
  maxChars?: number;
  /** The clock (tests); never compared across processes, so the process clock is right. */
  now?: () => number;
}

interface Entry {
  rules: Promise<RobotsRules>;
  expires: number;
  chars: number;
}

/** Counted per origin besides its patterns, so many small files are bounded too. */
const ENTRY_OVERHEAD_CHARS = 200;

/**
 * robots.txt per origin, bounded (least recently used out first) and for a
 * limited time: a missing file (4xx) allows everything; an unreachable one or
 * a server error or a 429 disallows everything (RFC 9309 §2.3.1), so a site
 * under strain is not read, and is asked again after `failureTtlMs`. The file
 * is fetched without the caller's signal, so one caller's abort does not
 * become a cached "disallow" for the others (safeFetch's own time cap bounds
 * it; readPage waits for it under its own signal).
 */
export class RobotsCache {
  private readonly byOrigin = new Map<string, Entry>();
  private chars = 0;
  private readonly ttlMs: number;
  private readonly failureTtlMs: number;
  private readonly maxEntries: number;
  private readonly maxChars: number;
  private readonly now: () => number;

  constructor(
    private readonly fetchOptions: Omit<SafeFetchOptions, "beforeHop" | "accept" | "maxBytes" | "signal"> = {},
    limits: RobotsCacheLimits = {},
  ) {
    this.ttlMs = limits.ttlMs ?? 60 * 60_000;
    this.failureTtlMs = limits.failureTtlMs ?? 5 * 60_000;
    this.maxEntries = limits.maxEntries ?? 500;
    this.maxChars = limits.maxChars ?? 4_000_000;
    this.now = limits.now ?? Date.now;
  }

  rulesFor(origin: string): Promise<RobotsRules> {
    const hit = this.byOrigin.get(origin);
    if (hit) {
      this.forget(origin, hit);
      if (hit.expires > this.now()) {
        // Most recently used goes last: eviction takes the first.
        this.remember(origin, hit);
        return hit.rules;
      }
    }
    const entry: Entry = {
      rules: Promise.resolve(ALLOW_ALL),
      expires: this.now() + this.ttlMs,
      chars: ENTRY_OVERHEAD_CHARS,
    };
    entry.rules = this.load(origin).then(({ rules, failed }) => {
      if (failed) entry.expires = Math.min(entry.expires, this.now() + this.failureTtlMs);
      if (this.byOrigin.get(origin) === entry) {
        this.forget(origin, entry);
        entry.chars = ENTRY_OVERHEAD_CHARS + rules.rules.reduce((n, r) => n + r.pattern.length, 0);
        this.remember(origin, entry);
      }
      return rules;
    });
    this.remember(origin, entry);
    return entry.rules;
  }

  async allowed(url: URL): Promise<boolean> {
    return isAllowed(await this.rulesFor(url.origin), url);
  }

  /** Origins held now (tests). */
  get size(): number {
    return this.byOrigin.size;
  }

  private remember(origin: string, entry: Entry): void {
    this.byOrigin.set(origin, entry);
    this.chars += entry.chars;
    for (const [oldest, e] of this.byOrigin) {
      if (this.byOrigin.size <= this.maxEntries && this.chars <= this.maxChars) break;
      if (e === entry) break; // the newest stays, even alone over the character bound
      this.forget(oldest, e);
    }
  }

  private forget(origin: string, entry: Entry): void {
    if (this.byOrigin.get(origin) !== entry) return;
    this.byOrigin.delete(origin);
    this.chars -= entry.chars;
  }

  private async load(origin: string): Promise<{ rules: RobotsRules; failed: boolean }> {
    try {
      const res = await safeFetch(new URL("/robots.txt", origin), {
        ...this.fetchOptions,
        accept: "text/plain",
        maxBytes: ROBOTS_MAX_BYTES,
      });
      return { rules: parseRobots(res.body.toString("utf8")), failed: false };
    } catch (err) {
      if (
        err instanceof FetchError &&
        err.reason === "status" &&
        err.status! >= 400 &&
        err.status! < 500 &&
        err.status !== 429
      )
        return { rules: ALLOW_ALL, failed: false };
      return { rules: DISALLOW_ALL, failed: true };
    }
  }
}
