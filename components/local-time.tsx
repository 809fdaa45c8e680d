"use client";

import { useSyncExternalStore } from "react";
import { useHydrated } from "@/lib/client/use-hydrated";
import { useI18n } from "@/lib/client/i18n";
import { useTimeZone } from "@/lib/client/time-zone";
import { formatMoment, formatMomentFull } from "@/lib/contract/clock";

// A coarse shared clock: "today" vs "another day" must flip at midnight
// without every timestamp running its own timer.
let now = 0;
const clockListeners = new Set<() => void>();
let clockTimer: ReturnType<typeof setInterval> | null = null;

function subscribeClock(listener: () => void): () => void {
  clockListeners.add(listener);
  if (clockTimer === null) {
    now = Date.now();
    clockTimer = setInterval(() => {
      now = Date.now();
      for (const l of clockListeners) l();
    }, 60_000);
  }
  return () => {
    clockListeners.delete(listener);
    if (clockListeners.size === 0 && clockTimer !== null) {
      clearInterval(clockTimer);
      clockTimer = null;
    }
  };
}

function getNow(): number {
  if (now === 0) now = Date.now();
  return now;
}

/**
 * A timestamp in the reader's language and the account's time zone (the one
 * Herald's replies, notices and emails use), in the shared format of
 * lib/contract/clock.ts. The server render has no clock to read, so the text
 * appears only once hydrated (no mismatch).
 * `seconds`: true where a few seconds matter (a task's start and end), "near"
 * for a due time (seconds only under an hour away, as the replies write it).
 * `relative`: add "in 2 min" while the moment is ahead (due times).
 */
export function LocalTime({
  iso,
  className,
  mode = "auto",
  seconds = false,
  relative = false,
}: {
  iso: string;
  className?: string;
  mode?: "auto" | "full";
  seconds?: boolean | "near";
  relative?: boolean;
}) {
  const { lang } = useI18n();
  const timeZone = useTimeZone();
  const hydrated = useHydrated();
  const current = useSyncExternalStore(subscribeClock, getNow, () => 0);
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return null;

  let text = "";
  let title: string | undefined;
  if (hydrated) {
    title = formatMomentFull(date, lang, timeZone);
    text = formatMoment(date, {
      lang,
      timeZone,
      now: new Date(current),
      seconds,
      date: mode === "full" ? "date" : "auto",
      relative: relative ? "future" : false,
    });
  }

  return (
    <time dateTime={iso} title={title} className={className}>
      {text}
    </time>
  );
}
