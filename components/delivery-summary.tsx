"use client";

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
          <LocalTime iso={dueAt} />
          {after}
        </span>
      ) : (
        <span>{t(mode === "at" ? "deliveryAt" : "deliveryBy")}</span>
      )}
      {reportIfUnfinished && <span>· {t("deliveryReportAnyway")}</span>}
    </span>
  );
}
