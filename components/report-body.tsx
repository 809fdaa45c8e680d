import { headingId } from "@/lib/client/report";
import { linkCitations, sourceAnchor, splitSources } from "@/lib/client/report-sources";
import { Markdown } from "./markdown";
import { cn } from "./ui/cn";

/**
 * A published body with its Sources section rendered as a list people can
 * use: each entry keeps its number (a partial lists only what it cites, so
 * numbers may skip), links to the page in a new tab without telling it where
 * the reader came from, and every citation `[n]` in the text links to its
 * entry. A body without such a section renders as plain Markdown.
 */
export function ReportBody({
  text,
  className,
  headingPrefix,
  anchorPrefix,
}: {
  text: string;
  className?: string;
  headingPrefix?: string;
  anchorPrefix: string;
}) {
  const split = splitSources(text);
  if (!split.heading) return <Markdown text={text} className={className} headingPrefix={headingPrefix} />;
  const known = new Set(split.sources.map((s) => s.n));
  return (
    <div className={className}>
      <Markdown text={linkCitations(split.main, known, anchorPrefix)} headingPrefix={headingPrefix} />
      <section data-testid="report-sources" aria-labelledby={`${anchorPrefix}-sources`} className="markdown mt-4">
        <h2
          id={headingPrefix ? headingId(headingPrefix, split.heading.line) : undefined}
          tabIndex={-1}
          className="scroll-mt-4 focus:outline-none"
        >
          <span id={`${anchorPrefix}-sources`}>{split.heading.text}</span>
        </h2>
        <ol className="list-none! space-y-1 pl-0!">
          {split.sources.map((s) => (
            <li
              key={s.n}
              id={sourceAnchor(anchorPrefix, s.n)}
              value={s.n}
              className={cn("scroll-mt-4 [overflow-wrap:anywhere] target:bg-accent-soft")}
            >
              <span className="mr-1.5 font-mono text-muted">{s.n}.</span>
              <a href={s.url} target="_blank" rel="noopener noreferrer">
                {s.title}
              </a>
              <span className="ml-1.5 text-xs text-muted">{hostOf(s.url)}</span>
            </li>
          ))}
        </ol>
      </section>
    </div>
  );
}

function hostOf(url: string): string {
  try {
    return new URL(url).hostname;
  } catch {
    return "";
  }
}
