import { APICallError } from "@ai-sdk/provider";
import type { LanguageModelV3 } from "@ai-sdk/provider";
import { generateText, NoObjectGeneratedError, Output } from "ai";
import { z } from "zod";

/**
 * A research plan is machine-read, so it is asked for as structured output (a
 * JSON object checked against `PLAN_SCHEMA`): `json_schema` where the endpoint
 * supports it, JSON mode elsewhere. Endpoints without JSON mode either ignore
 * the request and write prose, or refuse it (400); both fall back to
 * `readPlan`, which takes a JSON object out of the text if there is one and
 * otherwise only the items of a Markdown list, never lead-in or closing lines.
 */
const PLAN_SCHEMA = z.object({
  sections: z
    .array(z.string().min(1).max(200))
    .min(1)
    .max(50)
    .describe("Section titles, in order, without numbering or formatting"),
  queries: z
    .array(z.string().max(200))
    .max(50)
    .optional()
    .describe("One web search query per section, in the same order"),
});

export interface PlanResult {
  sections: string[];
  /** One web search query per section when the model wrote them (structured output); else the host derives them. */
  queries?: string[];
  /** Requests the plan took (a refused JSON mode costs a second, plain one). */
  requests: number;
  /** How the plan was read: "structured", or the fallback's "json" / "list" / "lines". */
  source: "structured" | ReadSource;
}

/** Names a missing section by its 1-based position (in the report's language). */
export type Pad = (index: number) => string;
const PART: Pad = (i) => `Part ${i}`;

export async function requestPlan(
  model: LanguageModelV3,
  prompt: string,
  n: number,
  opts: { signal?: AbortSignal; pad?: Pad } = {},
): Promise<PlanResult> {
  const { signal, pad = PART } = opts;
  try {
    const { output } = await generateText({
      model,
      abortSignal: signal,
      maxRetries: 0,
      output: Output.object({ schema: PLAN_SCHEMA, name: "research_plan", description: `Exactly ${n} section titles` }),
      prompt,
    });
    const titles = output.sections.map(cleanTitle);
    const sections = fit(titles.filter(Boolean), n, pad);
    // Queries only count when they line up with the sections one to one (a dropped frame heading takes its query along).
    const kept = titles.flatMap((t, i) => (t && !FRAME_HEADINGS.has(t.toLowerCase()) ? [i] : [])).slice(0, n);
    const queries =
      output.queries?.length === titles.length
        ? kept.map((i) => output.queries![i].replace(/\s+/g, " ").trim())
        : undefined;
    const aligned = queries && queries.length === n && queries.every(Boolean) ? { queries } : {};
    return { sections, requests: 1, source: "structured", ...aligned };
  } catch (err) {
    if (NoObjectGeneratedError.isInstance(err)) {
      const read = readPlan(err.text ?? "", n, pad);
      return { sections: read.sections, requests: 1, source: read.source };
    }
    // A refusal is about the request's shape (JSON mode unsupported), not the plan: ask once more, plainly.
    if (!(APICallError.isInstance(err) && (err.statusCode === 400 || err.statusCode === 422))) throw err;
  }
  const { text } = await generateText({ model, abortSignal: signal, maxRetries: 0, prompt });
  const read = readPlan(text, n, pad);
  return { sections: read.sections, requests: 2, source: read.source };
}

export type ReadSource = "json" | "list" | "lines";

/** The tolerant reading of a plan an endpoint wrote as text. */
export function readPlan(text: string, n: number, pad: Pad = PART): { sections: string[]; source: ReadSource } {
  const json = jsonSections(text);
  if (json) return { sections: fit(json, n, pad), source: "json" };
  const lines = text.split("\n");
  const items = lines
    .map(listItem)
    .filter((t): t is string => t !== null)
    .map(cleanTitle)
    .filter(Boolean);
  if (items.length > 0) return { sections: fit(items, n, pad), source: "list" };
  // No list at all: one title per line, minus lead-ins ("…:") and anything too long to be a title.
  const plain = lines.map(cleanTitle).filter((l) => l.length > 0 && l.length < 120 && !l.endsWith(":"));
  return { sections: fit(plain, n, pad), source: "lines" };
}

/**
 * The headings the host writes itself (lib/i18n/offline.ts): a section named like one would give the report two
 * Summaries, and the report view and share page find the summary and the sources by their heading.
 */
const FRAME_HEADINGS = new Set(["summary", "executive summary", "sources", "references", "摘要", "参考来源"]);

/** Exactly n titles: the host's own headings and extra ones dropped, missing ones named by position. */
function fit(titles: string[], n: number, pad: Pad): string[] {
  const out = titles.filter((t) => !FRAME_HEADINGS.has(t.toLowerCase())).slice(0, n);
  for (let i = out.length; i < n; i++) out.push(pad(i + 1));
  return out;
}

/** `{"sections": [...]}` (or a bare array of strings) anywhere in the text, e.g. inside a ```json fence. */
function jsonSections(text: string): string[] | null {
  for (const [open, close] of [
    ["{", "}"],
    ["[", "]"],
  ] as const) {
    const start = text.indexOf(open);
    const end = text.lastIndexOf(close);
    if (start < 0 || end <= start) continue;
    let value: unknown;
    try {
      value = JSON.parse(text.slice(start, end + 1));
    } catch {
      continue;
    }
    const candidate = Array.isArray(value) ? { sections: value } : value;
    const parsed = PLAN_SCHEMA.safeParse(candidate);
    if (parsed.success) {
      const titles = parsed.data.sections.map(cleanTitle).filter(Boolean);
      if (titles.length > 0) return titles;
    }
  }
  return null;
}

const ORDERED = /^\s{0,3}\d{1,3}[.)]\s+/;
const BULLET = /^\s{0,3}[-*•+]\s+/;
const HEADING = /^\s{0,3}#{1,6}\s+/;

/** The text of a Markdown list item or heading line, or null for any other line. */
function listItem(line: string): string | null {
  for (const re of [ORDERED, BULLET, HEADING]) {
    const m = re.exec(line);
    if (m) return line.slice(m[0].length);
  }
  return null;
}

/**
 * A title without its Markdown: a leading bold/italic/code span is the title
 * (`**Early origins** — where…` → `Early origins`); otherwise the text before a
 * dash or colon gloss; emphasis markers are dropped either way.
 */
export function cleanTitle(raw: string): string {
  let s = raw.trim();
  const lead = /^(\*\*|__|\*|_|`)/.exec(s);
  if (lead) {
    const close = s.indexOf(lead[1], lead[1].length);
    if (close > 0) s = s.slice(lead[1].length, close);
  } else {
    for (const sep of [" — ", " – ", " - ", ": "]) {
      const at = s.indexOf(sep);
      if (at > 0) {
        s = s.slice(0, at);
        break;
      }
    }
  }
  s = s.replace(/[*_`]+/g, "").replace(/^\s*(?:\d{1,3}[.)]|[-•])\s+/, "");
  // The lookbehind lets a run start only at its first character: without it a long run that does not end the text
  // (model output) is retried from each of its characters.
  return s
    .replace(/(?<![\s:;,.—–-])[\s:;,.—–-]+$/, "")
    .trim()
    .slice(0, 200);
}
