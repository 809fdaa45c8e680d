"use client";

import { useEffect, useId, useState } from "react";
import { durationParts, secondsUntilTimeOfDay, SHORT_DUE_SECONDS, type DeliveryMode } from "@/lib/client/delivery";
import { useI18n } from "@/lib/client/i18n";
import { useTimeZone } from "@/lib/client/time-zone";
import { formatMoment } from "@/lib/contract/clock";
import { cn } from "./ui/cn";

/** A due time as a time of day (the account's clock; seconds allowed), the other way to give "Due in (minutes)". */
export function TimeOfDayField({
  value,
  onChange,
  className,
}: {
  value: string;
  onChange: (value: string) => void;
  className: string;
}) {
  const { t } = useI18n();
  const id = useId();
  return (
    <span className="flex items-center gap-1.5">
      <label htmlFor={id}>{t("deliveryTimeOfDay")}</label>
      <input
        id={id}
        type="time"
        step={1}
        value={value}
        onChange={(event) => onChange(event.target.value)}
        className={cn(className, "w-[9.5rem]")}
      />
    </span>
  );
}

/** Ticks once a second while shown: "in 2 min 5 s" must not go stale while someone reads it. */
function useNow(): number | null {
  const [now, setNow] = useState<number | null>(null);
  useEffect(() => {
    const tick = () => setNow(Date.now());
    const first = setTimeout(tick, 0);
    const timer = setInterval(tick, 1000);
    return () => {
      clearTimeout(first);
      clearInterval(timer);
    };
  }, []);
  return now;
}

/**
 * The sentence under the picker: what Herald will do and when, in the reader's
 * language, locale and time zone, with seconds where they matter (under an
 * hour away, or a time typed with seconds). The promise is `timeOfDay` when
 * one is typed ("Tell me at"), else `dueInSeconds` from now; nothing is shown
 * while the fields are invalid.
 */
export function DeliveryExplainer({
  mode,
  dueInSeconds,
  timeOfDay,
  reportAnyway,
  stopAtDeadline,
}: {
  mode: Exclude<DeliveryMode, "none">;
  dueInSeconds: number | null;
  timeOfDay: string;
  reportAnyway: boolean;
  stopAtDeadline: boolean;
}) {
  const { t, lang } = useI18n();
  const timeZone = useTimeZone();
  const now = useNow();
  if (now === null) return null;
  const seconds = timeOfDay ? secondsUntilTimeOfDay(timeOfDay, new Date(now), timeZone) : dueInSeconds;
  if (seconds === null) return null;
  const preciseTime = /:\d{2}:\d{2}/.test(timeOfDay) && !timeOfDay.endsWith(":00");
  // The format the chip and Herald's reply will use for the same moment (lib/contract/clock.ts).
  const time = formatMoment(new Date(now + seconds * 1000), {
    lang,
    timeZone,
    now: new Date(now),
    seconds: preciseTime || "near",
  });
  const d = durationParts(seconds);
  const left =
    d.unit === "s"
      ? t("durationSeconds", { s: d.s })
      : d.unit === "ms"
        ? t("durationMinutes", { m: d.m, s: d.s })
        : t("durationHours", { h: d.h, m: d.m });
  const main = t(mode === "at" ? "explainAt" : reportAnyway ? "explainByAnyway" : "explainBy", { time, left });
  return (
    // Not a live region: it changes every second.
    <p className="basis-full text-xs text-muted" data-testid="delivery-explainer">
      <span>{main}</span>
      {stopAtDeadline && <span> {t("explainStop")}</span>}
      {seconds < SHORT_DUE_SECONDS && <span className="text-warn"> {t("explainTooShort")}</span>}
      <span> {t("explainNoTask")}</span>
    </p>
  );
}
