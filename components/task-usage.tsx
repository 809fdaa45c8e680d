"use client";

import type { PublicTask } from "@/lib/client/tasks";
import { useI18n } from "@/lib/client/i18n";
import { LocalTime } from "./local-time";
import { cn } from "./ui/cn";

/**
 * "Waiting for the model provider · since 12:03" while a step waits out a
 * provider outage or rate limit; `compact` (the sheet's task rows) leaves out the explanation.
 */
export function ProviderWait({
  task,
  compact = false,
  className,
}: {
  task: Pick<PublicTask, "waitingForProvider">;
  compact?: boolean;
  className?: string;
}) {
  const { t } = useI18n();
  if (!task.waitingForProvider) return null;
  return (
    <div data-testid="provider-wait" className={cn("space-y-0.5 text-xs text-warn", className)}>
      <p>
        {t("waitingForProvider")} · <LocalTime iso={task.waitingForProvider.since} />
      </p>
      {!compact && <p className="text-muted">{t("waitingForProviderHint")}</p>}
    </div>
  );
}

/** Model requests, tokens read and written and, with a price table, the estimated cost of a task so far: in the details only. */
export function TaskUsage({ spent }: { spent: PublicTask["spent"] }) {
  const { t, locale } = useI18n();
  const n = (v: number) => v.toLocaleString(locale);
  const total = spent.inputTokens + spent.outputTokens;
  return (
    <p className="text-xs" data-testid="task-usage">
      {spent.modelRequests === 1 ? t("usageRequestsOne") : t("usageRequests", { n: n(spent.modelRequests) })}
      {" · "}
      {total > 0
        ? t("usageTokens", { total: n(total), input: n(spent.inputTokens), output: n(spent.outputTokens) })
        : t("usageNone")}
      {spent.costUsd !== null && (
        <span className="text-muted">
          {" · "}
          {t("usageCost", { cost: spent.costUsd.toLocaleString(locale, { maximumSignificantDigits: 3 }) })}
        </span>
      )}
    </p>
  );
}
