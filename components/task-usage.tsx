"use client";

import type { PublicTask } from "@/lib/client/tasks";
import { useI18n } from "@/lib/client/i18n";
import { LocalTime } from "./local-time";

/** "Waiting for the model provider · since 12:03" while a step waits out a provider outage or rate limit. */
export function ProviderWait({ task }: { task: Pick<PublicTask, "waitingForProvider"> }) {
  const { t } = useI18n();
  if (!task.waitingForProvider) return null;
  return (
    <div role="status" data-testid="provider-wait" className="space-y-0.5 text-xs text-warn">
      <p>
        {t("waitingForProvider")} · <LocalTime iso={task.waitingForProvider.since} />
      </p>
      <p className="text-muted">{t("waitingForProviderHint")}</p>
    </div>
  );
}

/** Requests, input/output tokens and, with a price table, the estimated cost of a task so far. */
export function TaskUsage({ spent }: { spent: PublicTask["spent"] }) {
  const { t, locale } = useI18n();
  const n = (v: number) => v.toLocaleString(locale);
  const tokens = spent.inputTokens + spent.outputTokens > 0;
  return (
    <p className="text-xs" data-testid="task-usage">
      {t("usageRequests", { n: n(spent.modelRequests) })}
      {" · "}
      {tokens ? t("usageTokens", { input: n(spent.inputTokens), output: n(spent.outputTokens) }) : t("usageNone")}
      {spent.costUsd !== null && (
        <span className="text-muted">
          {" · "}
          {t("usageCost", { cost: spent.costUsd.toLocaleString(locale, { maximumSignificantDigits: 3 }) })}
        </span>
      )}
    </p>
  );
}
