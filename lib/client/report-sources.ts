// A research report's Sources section, as the report view and the share page
// render it (components/report-body.tsx): the body before it, its entries, and
// the citations `[n]` in the body made into links to them. Pure, so the share
// page (a server component) uses it too.

export interface ReportSource {
  n: number;
  title: string;
  url: string;
}

export interface SplitReport {
  /** The body without the Sources section. */
  main: string;
  /** The Sources heading's text and 1-based line (its id on the page is built from it). */
  heading: { text: string; line: number } | null;
  sources: ReportSource[];
}

/** The headings research writes (lib/i18n/offline.ts researchSourcesHeading). */
const HEADINGS = new Set(["Sources", "参考来源"]);
/** Lines longer than this are no source entry (and no pattern runs over them). */
const MAX_LINE = 2_000;
const ENTRY = /^(\d{1,4})\. \[((?:[^\]\\]|\\.){0,600})\]\(([^\s()]{1,1500})\)$/;

/**
 * The last `## Sources` / `## 参考来源` section when every line after it is an
 * entry `n. [title](url)` (blank lines aside); otherwise the body as it is.
 */
export function splitSources(markdown: string): SplitReport {
  const none: SplitReport = { main: markdown, heading: null, sources: [] };
  const lines = markdown.split("\n");
  let at = -1;
  for (let i = lines.length - 1; i >= 0; i--) {
    const m = /^## (.{1,40})$/.exec(lines[i].length <= 60 ? lines[i].trimEnd() : "");
    if (m && HEADINGS.has(m[1].trim())) {
      at = i;
      break;
    }
    if (lines[i].startsWith("#")) return none;
  }
  if (at < 0) return none;
  const sources: ReportSource[] = [];
  for (const line of lines.slice(at + 1)) {
    if (!line.trim()) continue;
    const m = line.length <= MAX_LINE ? ENTRY.exec(line.trimEnd()) : null;
    if (!m || !/^https?:\/\//i.test(m[3])) return none;
    sources.push({ n: Number(m[1]), title: m[2].replace(/\\(.)/g, "$1"), url: m[3] });
  }
  if (sources.length === 0) return none;
  return {
    main: lines.slice(0, at).join("\n").trimEnd(),
    heading: { text: lines[at].slice(3).trim(), line: at + 1 },
    sources,
  };
}

export const sourceAnchor = (prefix: string, n: number) => `${prefix}-source-${n}`;

/**
 * `[3]` and `[3, 4]` in the body as links to the entries (only numbers the list
 * has; a link `[3](…)` is left alone). Fenced code is left as written.
 */
export function linkCitations(main: string, known: ReadonlySet<number>, prefix: string): string {
  let fence = false;
  return main
    .split("\n")
    .map((line) => {
      if (/^\s{0,3}(`{3,}|~{3,})/.test(line)) fence = !fence;
      if (fence || line.length > 20_000) return line;
      return line.replace(/\[(\d{1,4}(?:[ \t]?[,，][ \t]?\d{1,4}){0,19})\](?!\()/g, (whole, inner: string) => {
        const ns = inner.split(/[,，]/).map((p) => Number(p.trim()));
        if (!ns.every((n) => known.has(n))) return whole;
        return ns.map((n) => `[\\[${n}\\]](#${sourceAnchor(prefix, n)})`).join("");
      });
    })
    .join("\n");
}
