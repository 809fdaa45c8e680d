"use client";

import { useMemo } from "react";
import { useI18n } from "@/lib/client/i18n";
import { lineDiff } from "@/lib/client/report";

/** What changed from `before` to `after`, line by line; unchanged runs are kept so the change reads in place. */
export function ReportDiff({
  before,
  after,
  afterVersion,
}: {
  before: string;
  after: string;
  afterVersion: number | undefined;
}) {
  const { t } = useI18n();
  const lines = useMemo(() => lineDiff(before, after), [before, after]);
  const changed = lines.some((l) => l.type !== "same");
  return (
    <div data-testid="report-diff" className="space-y-2">
      <p className="text-xs text-muted">{t("reportDiffLegend", { version: afterVersion ?? "?" })}</p>
      {!changed ? (
        <p className="text-sm">{t("reportDiffSame")}</p>
      ) : (
        <ol className="overflow-x-auto rounded-lg border border-border bg-subtle/40 py-2 font-mono text-xs leading-relaxed">
          {lines.map((l, i) => (
            <li
              key={i}
              data-diff={l.type}
              className={`px-3 whitespace-pre-wrap [overflow-wrap:anywhere] ${
                l.type === "add" ? "bg-ok-soft text-ok" : l.type === "del" ? "bg-danger-soft text-danger" : "text-muted"
              }`}
            >
              {l.type !== "same" && (
                <span className="sr-only">{l.type === "add" ? t("reportDiffAdded") : t("reportDiffRemoved")}: </span>
              )}
              <span aria-hidden="true">{l.type === "add" ? "+ " : l.type === "del" ? "− " : "  "}</span>
              <span className={l.type === "del" ? "line-through" : undefined}>{l.text || " "}</span>
            </li>
          ))}
        </ol>
      )}
    </div>
  );
}
