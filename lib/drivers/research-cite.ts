import type { Lang } from "@/lib/i18n/dictionaries";
import { offlineText } from "@/lib/i18n/offline";

/**
 * Citations in research text: `[n]` (or `[n, m]`) names the source numbered n
 * for this task (task_source.n). The host, not the model, decides which
 * numbers stand: a number that names no page the task read is removed before
 * anything is published. Every pattern here is linear (no nested quantifier
 * over the same characters); a Markdown link `[1](…)` is not a citation.
 */

/** The fields a Sources list needs of a page the task read. */
export interface CitedSource {
  n: number;
  url: string;
  title: string;
}

// `[3]`, `[3, 4]`, `[3，4]` — not `[3](url)`, not `[^3]`.
const CITATION = /\[(\d{1,4}(?:[ \t]?[,，][ \t]?\d{1,4}){0,19})\](?!\()/g;

/**
 * The largest number a citation can carry. A task reads at most
 * HERALD_RESEARCH_MAX_SOURCES pages (its schema caps it at 200), so a bracket
 * holding a larger number is a year or a count (`[1911]`, `[2023]`) the text
 * means as written: it is left alone, not removed as an unknown source.
 */
export const CITATION_MAX = 999;

const numbersIn = (inner: string) => inner.split(/[,，]/).map((p) => Number(p.trim()));
const isCitation = (numbers: readonly number[]) => numbers.every((n) => n <= CITATION_MAX);

/** The numbers the text cites, in first-cited order. */
export function citedNumbers(text: string): number[] {
  const seen = new Set<number>();
  for (const m of text.matchAll(CITATION)) {
    const numbers = numbersIn(m[1]);
    if (isCitation(numbers)) for (const n of numbers) seen.add(n);
  }
  return [...seen];
}

/**
 * The text with every citation checked against `known`: numbers that name no
 * source are dropped from their bracket, a bracket left empty goes with the
 * space before it. `removed` counts the numbers dropped (logged, never shown).
 */
export function checkCitations(text: string, known: ReadonlySet<number>): { text: string; removed: number } {
  let removed = 0;
  const out = text.replace(/[ \t]?\[(\d{1,4}(?:[ \t]?[,，][ \t]?\d{1,4}){0,19})\](?!\()/g, (whole, inner: string) => {
    const parts = numbersIn(inner);
    if (!isCitation(parts)) return whole;
    const kept = parts.filter((n) => known.has(n));
    removed += parts.length - kept.length;
    if (kept.length === parts.length) return whole;
    if (kept.length === 0) return "";
    const lead = whole.startsWith("[") ? "" : whole[0];
    return `${lead}[${kept.join(", ")}]`;
  });
  return { text: out, removed };
}

/** `## Sources` (`## 参考来源`): the heading the report view and share page find the list by. */
export function sourcesHeading(lang: Lang): string {
  return `## ${offlineText(lang, "researchSourcesHeading")}`;
}

/** Brackets and line breaks in a title would end the link text early. */
const linkText = (title: string) =>
  title
    .replace(/[\r\n]+/g, " ")
    .replace(/([[\]\\])/g, "\\$1")
    .trim() || "(untitled)";
/** A URL in `(…)` must not close the parenthesis or hold a space. */
const linkUrl = (url: string) =>
  url.replace(/[ ()<>]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase().padStart(2, "0")}`);

/** `n. [title](url)`, one per line, in number order; empty when there is nothing to list. */
export function sourcesSection(sources: readonly CitedSource[], lang: Lang): string {
  if (sources.length === 0) return "";
  const lines = [...sources].sort((a, b) => a.n - b.n).map((s) => `${s.n}. [${linkText(s.title)}](${linkUrl(s.url)})`);
  return `${sourcesHeading(lang)}\n\n${lines.join("\n")}`;
}

/**
 * The opening sentence of a section's text, with its citations: what the
 * report's summary quotes. Sentences end at `.`, `!`, `?` followed by a space,
 * or at `。！？`; a citation right after the stop stays with its sentence.
 */
export function firstSentence(text: string): string {
  const flat = text.replace(/\s*\n+\s*/g, " ").trim();
  const m = /^.{1,600}?(?:[.!?](?:[ \t]?\[[\d, ，]{1,40}\])?(?=\s|$)|[。！？](?:\[[\d, ，]{1,40}\])?)/su.exec(flat);
  const s = (m ? m[0] : flat.slice(0, 300)).trim();
  return s.length < flat.length && !m ? `${s}…` : s;
}
