"use client";

import type { PublicTask } from "@/lib/client/tasks";
import { useI18n } from "@/lib/client/i18n";
import { cn } from "./ui/cn";

const WITHOUT = {
  search_off: "sourcesWithoutOff",
  search_unavailable: "sourcesWithoutUnavailable",
  none_found: "sourcesWithoutNoneFound",
} as const;

/**
 * How many pages a research task read ("4 sources read"), or that its report
 * was written without sources and why. Nothing for other drivers, nor before
 * native research searched at all. `compact` (the sheet's rows) leaves out the
 * search count.
 */
export function TaskSources({
  task,
  compact = false,
  className,
}: {
  task: Pick<PublicTask, "driver" | "spent" | "sourcesNote">;
  compact?: boolean;
  className?: string;
}) {
  const { t, locale } = useI18n();
  if (task.driver !== "research") return null;
  const { pagesRead, searches } = task.spent;
  if (task.sourcesNote) {
    return (
      <p data-testid="task-sources" data-sources="0" className={cn("text-xs text-warn", className)}>
        {t(WITHOUT[task.sourcesNote])}
      </p>
    );
  }
  if (pagesRead === 0 && (compact || searches === 0)) return null;
  return (
    <p data-testid="task-sources" data-sources={pagesRead} className={cn("text-xs text-muted", className)}>
      {pagesRead === 1
        ? t("sourcesReadOne")
        : pagesRead > 0
          ? t("sourcesRead", { n: pagesRead.toLocaleString(locale) })
          : t("sourcesNone")}
      {!compact && searches > 0 && ` · ${t("sourcesSearches", { n: searches.toLocaleString(locale) })}`}
    </p>
  );
}
