// Report helpers the browser uses on a published body (components/report-*.tsx):
// its headings for a table of contents, a line diff between versions, and file
// names for downloads. Pure functions, so the share page can use them too.

export interface ReportHeading {
  level: 1 | 2 | 3;
  text: string;
  /** 1-based source line: the heading's id on the page is built from it (headingId). */
  line: number;
}

const FENCE = /^\s{0,3}(`{3,}|~{3,})/;
const ATX_OPEN = /^ {0,3}(#{1,3})(?:[ \t]+|$)/;
/** Model text is long and untrusted: a heading line is cut before any pattern looks at it. */
const MAX_HEADING_CHARS = 300;

/** The text after an ATX opener, without the optional closing run of #s (CommonMark). */
function atxText(rest: string): string {
  const t = rest.trimEnd();
  let end = t.length;
  while (end > 0 && t[end - 1] === "#") end--;
  if (end === 0) return "";
  return end < t.length && (t[end - 1] === " " || t[end - 1] === "\t") ? t.slice(0, end).trimEnd() : t;
}

/** Inline Markdown a heading's text may carry, reduced to what a reader sees. */
function plainInline(text: string): string {
  return text
    .replace(/!?\[([^\]]*)\]\([^)]*\)/g, "$1")
    .replace(/[*_`~]+/g, "")
    .trim();
}

/** ATX headings of levels 1–3 outside fenced code, in order. */
export function reportHeadings(markdown: string): ReportHeading[] {
  const out: ReportHeading[] = [];
  let fence: string | null = null;
  const lines = markdown.split(/\r?\n/);
  for (let i = 0; i < lines.length; i++) {
    const f = FENCE.exec(lines[i]);
    if (f) {
      if (fence === null) fence = f[1][0];
      else if (f[1][0] === fence) fence = null;
      continue;
    }
    if (fence !== null) continue;
    const line = lines[i].slice(0, MAX_HEADING_CHARS);
    const m = ATX_OPEN.exec(line);
    if (!m) continue;
    const text = plainInline(atxText(line.slice(m[0].length)));
    if (text) out.push({ level: m[1].length as 1 | 2 | 3, text, line: i + 1 });
  }
  return out;
}

/** The id a rendered heading carries; both the TOC and Markdown build it from the source line. */
export const headingId = (prefix: string, line: number) => `${prefix}-h${line}`;

export type DiffLine = { type: "same" | "add" | "del"; text: string };

/** Above this many cells the LCS table would cost too much: the diff says "replaced" instead. */
const MAX_DIFF_CELLS = 4_000_000;

/** A line diff (longest common subsequence): what `after` removed from and added to `before`. */
export function lineDiff(before: string, after: string): DiffLine[] {
  const a = before.split(/\r?\n/);
  const b = after.split(/\r?\n/);
  const n = a.length;
  const m = b.length;
  if ((n + 1) * (m + 1) > MAX_DIFF_CELLS) {
    return [...a.map((text) => ({ type: "del" as const, text })), ...b.map((text) => ({ type: "add" as const, text }))];
  }
  // lcs[i][j]: common lines of a[i..] and b[j..], in one flat array.
  const w = m + 1;
  const lcs = new Uint32Array((n + 1) * w);
  for (let i = n - 1; i >= 0; i--) {
    for (let j = m - 1; j >= 0; j--) {
      lcs[i * w + j] =
        a[i] === b[j] ? lcs[(i + 1) * w + j + 1] + 1 : Math.max(lcs[(i + 1) * w + j], lcs[i * w + j + 1]);
    }
  }
  const out: DiffLine[] = [];
  let i = 0;
  let j = 0;
  while (i < n && j < m) {
    if (a[i] === b[j]) {
      out.push({ type: "same", text: a[i] });
      i++;
      j++;
    } else if (lcs[(i + 1) * w + j] >= lcs[i * w + j + 1]) {
      out.push({ type: "del", text: a[i++] });
    } else {
      out.push({ type: "add", text: b[j++] });
    }
  }
  while (i < n) out.push({ type: "del", text: a[i++] });
  while (j < m) out.push({ type: "add", text: b[j++] });
  return out;
}

/** A file name for a download: the title's letters and digits (any script), dashes between, and the version. */
export function reportFileName(title: string, version: number | undefined, ext: "md"): string {
  const base =
    title
      .normalize("NFKC")
      .replace(/[^\p{L}\p{N}]+/gu, "-")
      .replace(/^-+|-+$/g, "")
      .slice(0, 80) || "report";
  return `${base}${version !== undefined ? `-v${version}` : ""}.${ext}`;
}

/** Time left, from the time each finished step took so far; null until two steps give a pace. */
export function etaSeconds(
  steps: { done: number; total: number; at: string },
  startedAt: string | null,
  now: number,
): number | null {
  if (!startedAt || steps.done < 2 || steps.done >= steps.total) return null;
  const at = Date.parse(steps.at);
  const start = Date.parse(startedAt);
  if (!Number.isFinite(at) || !Number.isFinite(start) || at <= start) return null;
  // startedAt is stamped when the first step commits; each later commit is one more step.
  const perStep = (at - start) / (steps.done - 1);
  const left = perStep * (steps.total - steps.done) - (now - at);
  return Math.max(0, Math.round(left / 1000));
}

const ATX_ANY = /^ {0,3}#{1,6}(?:[ \t]|$)/;

/**
 * The Markdown a person copies or downloads: a blank line before and after
 * every heading outside fenced code (a body may put "## Findings" right under
 * a paragraph; it renders, but reads cramped in an editor and some tools miss
 * it), and one final newline. Nothing else changes.
 */
export function markdownForFile(markdown: string): string {
  const lines = markdown.replace(/\r\n?/g, "\n").split("\n");
  const out: string[] = [];
  let fence: string | null = null;
  let afterHeading = false;
  for (const line of lines) {
    const f = FENCE.exec(line);
    const heading = fence === null && !f && ATX_ANY.test(line);
    if (afterHeading && line.trim() !== "" && !heading) out.push("");
    if (heading && out.length > 0 && out[out.length - 1].trim() !== "") out.push("");
    out.push(line);
    afterHeading = heading;
    if (f) {
      if (fence === null) fence = f[1][0];
      else if (f[1][0] === fence) fence = null;
    }
  }
  return `${out.join("\n").trimEnd()}\n`;
}
