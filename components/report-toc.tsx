"use client";

import type { MouseEvent } from "react";
import { useI18n } from "@/lib/client/i18n";
import { headingId, type ReportHeading } from "@/lib/client/report";

/** Jumps to a heading and moves focus there, so the keyboard continues from the section. */
function jump(event: MouseEvent<HTMLAnchorElement>, id: string) {
  const target = document.getElementById(id);
  if (!target) return;
  event.preventDefault();
  target.scrollIntoView({ block: "start" });
  target.focus({ preventScroll: true });
}

/** A table of contents from the report's headings (levels 1–3); links work without script too. */
export function ReportToc({
  headings,
  prefix,
  className,
}: {
  headings: ReportHeading[];
  prefix: string;
  className?: string;
}) {
  const { t } = useI18n();
  if (headings.length < 2) return null;
  const top = Math.min(...headings.map((h) => h.level));
  return (
    <nav aria-label={t("reportContents")} className={className}>
      <p className="mb-2 text-xs font-semibold tracking-wide text-muted uppercase">{t("reportContents")}</p>
      <ol className="space-y-1 text-sm">
        {headings.map((h) => {
          const id = headingId(prefix, h.line);
          return (
            <li key={h.line} style={{ paddingInlineStart: `${(h.level - top) * 0.75}rem` }}>
              <a
                href={`#${id}`}
                onClick={(e) => jump(e, id)}
                className="block rounded px-1 py-0.5 text-accent-text underline-offset-4 hover:underline [overflow-wrap:anywhere]"
              >
                {h.text}
              </a>
            </li>
          );
        })}
      </ol>
    </nav>
  );
}
