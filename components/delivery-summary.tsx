"use client";

import type { PublicTask } from "@/lib/contract/task";
import { useI18n } from "@/lib/client/i18n";
import { TimerIcon } from "./icons";
import { LocalTime } from "./local-time";
import { cn } from "./ui/cn";

/** "Tell me at 10:45" / "Tell me by 10:45", with the time in the reader's locale and zone. */
export function DeliverySummary({
  mode,
  dueAt,
  reportIfUnfinished,
  className,
}: {
  mode: "at" | "by";
  dueAt: string | null;
  reportIfUnfinished?: boolean;
  className?: string;
}) {
  const { t } = useI18n();
  const template = t(mode === "at" ? "deliveryAtSummary" : "deliveryBySummary");
  const [before, after = ""] = template.split("{time}");
  return (
    <span data-delivery-mode={mode} className={cn("inline-flex flex-wrap items-center gap-x-1", className)}>
      <TimerIcon className="size-3.5 shrink-0" />
      {dueAt ? (
        <span>
          {before}
          <LocalTime iso={dueAt} seconds="near" relative />
          {after}
        </span>
      ) : (
        <span>{t(mode === "at" ? "deliveryAt" : "deliveryBy")}</span>
      )}
      {reportIfUnfinished && <span>· {t("deliveryReportAnyway")}</span>}
    </span>
  );
}

/**
 * The overtime rule a timed task runs under: "Stops at the deadline", or "May
 * run past the deadline (up to 20 model requests, 10 min)". What it has used is
 * in the task's details (components/task-usage.tsx), not on the card.
 */
export function OvertimeSummary({ delivery }: Pick<PublicTask, "delivery">) {
  const { t } = useI18n();
  const limits: string[] = [];
  const requests = delivery.budget?.maxModelRequests;
  if (requests !== undefined)
    limits.push(requests === 1 ? t("budgetRequestsOne") : t("budgetRequests", { n: requests }));
  if (delivery.budget?.maxWallSeconds !== undefined)
    limits.push(t("budgetMinutes", { n: Math.ceil(delivery.budget.maxWallSeconds / 60) }));
  if (delivery.budget?.maxTokens !== undefined) limits.push(t("budgetTokens", { n: delivery.budget.maxTokens }));
  const rule = !delivery.allowOvertime
    ? t("overtimeOff")
    : limits.length > 0
      ? t("overtimeBudget", { limits: limits.join(", ") })
      : t("overtimeOn");
  return <span data-overtime={delivery.allowOvertime ? "allowed" : "off"}>{rule}</span>;
}
