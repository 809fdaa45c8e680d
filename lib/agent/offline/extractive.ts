import type { Lang } from "@/lib/i18n/dictionaries";
import { joinSentences } from "@/lib/i18n/offline";
import type { FramedBlock } from "@/lib/text/frame";
import { SOURCE_EARLIER, SOURCE_FRAME_LABEL } from "@/lib/drivers/research-prompt";
import { termsOf } from "@/lib/drivers/research-read";
import { steeringTerms } from "@/lib/drivers/research-topic";

/**
 * The offline model's section from the pages a research step framed for it:
 * the sentences that share most words with the section and the request, each
 * cited to its page, in page order. Nothing is made up and nothing is
 * reworded; the same pages and words always give the same text.
 */

/** Sentences a section takes from one page, and in all. */
const PER_SOURCE = 2;
const PER_SECTION = 6;
const SENTENCE_MIN = 25;
const SENTENCE_MAX = 400;
/** A line without a closing stop this short is a heading or a caption (often the page's title), not a statement. */
const FRAGMENT_MAX = { han: 30, other: 60 };

interface Sentence {
  n: number;
  order: number;
  text: string;
  score: number;
}

/** Sentence ends: `.!?` before a space, or `。！？`; line breaks end one too (headings, list items). */
export function sentencesOf(text: string): string[] {
  const out: string[] = [];
  for (const line of text.split("\n")) {
    const t = line.replace(/^\s*(?:#{1,6}|[-*•]|\d{1,3}[.)])\s+/, "").trim();
    if (!t) continue;
    let start = 0;
    for (let i = 0; i < t.length; i++) {
      const c = t[i];
      const cjkStop = c === "。" || c === "！" || c === "？";
      const stop = (c === "." || c === "!" || c === "?") && (i + 1 === t.length || t[i + 1] === " ");
      if (cjkStop || stop) {
        out.push(t.slice(start, i + 1).trim());
        start = i + 1;
      }
    }
    if (start < t.length) out.push(t.slice(start).trim());
  }
  return out.filter(Boolean);
}

const isHan = (s: string) => /\p{Script=Han}/u.test(s);

function isStatement(text: string): boolean {
  const han = isHan(text);
  if (text.length < (han ? 8 : SENTENCE_MIN) || text.length > SENTENCE_MAX) return false;
  return /[.!?。！？]$/.test(text) || text.length > (han ? FRAGMENT_MAX.han : FRAGMENT_MAX.other);
}

/** `Fact.` → `Fact [3].`; `事实。` → `事实[3]。`: the citation stays inside the sentence it backs. */
function cite(sentence: string, n: number): string {
  const m = /[.!?。！？]$/.exec(sentence);
  const body = m ? sentence.slice(0, -1) : sentence;
  const stop = m ? m[0] : isHan(sentence) ? "。" : ".";
  return `${body}${isHan(sentence) ? "" : " "}[${n}]${stop}`;
}

/** A sentence on what the user steered towards outweighs one that only shares the topic's words. */
const FOCUS_WEIGHT = 3;

/**
 * The cited sentences for a section; `nothing_new` when the prompt framed only
 * pages earlier sections already quoted and they hold no further sentence on
 * it; null when it framed no page. `focus`: the instructions the user sent
 * while the task ran; sentences on what they name are preferred.
 */
export function extractiveSection(
  frames: readonly FramedBlock[],
  section: string,
  topic: string,
  lang: Lang,
  focus = "",
): string | "nothing_new" | null {
  const label = new RegExp(`^${SOURCE_FRAME_LABEL} (\\d{1,4})( ${SOURCE_EARLIER})?$`);
  const pages = frames
    .map((f) => {
      const m = label.exec(f.label);
      return { n: Number(m?.[1]), earlier: Boolean(m?.[2]), body: f.body };
    })
    .filter((p) => Number.isInteger(p.n) && p.n > 0);
  if (pages.length === 0) return null;
  const terms = termsOf(`${section} ${topic}`);
  const topicTerms = new Set(termsOf(topic));
  const focusTerms = steeringTerms(focus ? focus.split("\n") : []);
  const baseOf = (lower: string) =>
    terms.reduce((s, t) => (lower.includes(t) ? s + (topicTerms.has(t) ? 2 : 1) : s), 0);
  const picked: Sentence[] = [];
  for (const page of pages) {
    const scored = sentencesOf(page.body.replace(/\[(?:\d{1,4}|citation needed|[a-z])\]/g, ""))
      .map((text, order) => {
        const lower = text.toLowerCase();
        const base = baseOf(lower);
        return {
          n: page.n,
          order,
          text,
          base,
          score: focusTerms.reduce((s, t) => (lower.includes(t) ? s + FOCUS_WEIGHT : s), base),
        };
      })
      .filter((s) => isStatement(s.text));
    // A page the search found for this section counts even when no sentence shares a word: its opening stands for it.
    const ranked = scored.filter((s) => s.score > 0).sort((a, b) => b.score - a.score || a.order - b.order);
    // A page an earlier section read gave it its best sentences already (those the topic's words rank first, as they
    // did there, whatever the user steered towards since): this section takes the next ones, if any.
    if (page.earlier) {
      const quoted = new Set(
        scored
          .filter((s) => s.base > 0)
          .sort((a, b) => b.base - a.base || a.order - b.order)
          .slice(0, PER_SOURCE),
      );
      picked.push(...ranked.filter((s) => !quoted.has(s)).slice(0, PER_SOURCE));
      continue;
    }
    const best = ranked.slice(0, PER_SOURCE);
    picked.push(...(best.length > 0 ? best : scored.slice(0, 1)));
  }
  const chosen = picked
    .sort((a, b) => b.score - a.score || a.n - b.n || a.order - b.order)
    .slice(0, PER_SECTION)
    .sort((a, b) => a.n - b.n || a.order - b.order);
  if (chosen.length === 0) return pages.every((p) => p.earlier) ? "nothing_new" : null;
  return joinSentences(
    lang,
    chosen.map((s) => cite(s.text, s.n)),
  );
}
