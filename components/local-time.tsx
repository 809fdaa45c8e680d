"use client";

import { useSyncExternalStore } from "react";
import { useHydrated } from "@/lib/client/use-hydrated";
import { useI18n } from "@/lib/client/i18n";

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

function sameDay(a: Date, b: Date): boolean {
  return a.getFullYear() === b.getFullYear() && a.getMonth() === b.getMonth() && a.getDate() === b.getDate();
}

/**
 * A timestamp in the reader's locale and time zone. The server knows neither,
 * so the text appears only once hydrated (no mismatch, no wrong zone).
 * `seconds`: where a few seconds matter (due times, a task's start and end).
 */
export function LocalTime({
  iso,
  className,
  mode = "auto",
  seconds = false,
}: {
  iso: string;
  className?: string;
  mode?: "auto" | "full";
  seconds?: boolean;
}) {
  const { locale } = useI18n();
  const hydrated = useHydrated();
  const current = useSyncExternalStore(subscribeClock, getNow, () => 0);
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return null;

  let text = "";
  let title: string | undefined;
  if (hydrated) {
    title = new Intl.DateTimeFormat(locale, { dateStyle: "full", timeStyle: "medium" }).format(date);
    const timeStyle = seconds ? "medium" : "short";
    text =
      mode === "auto" && sameDay(date, new Date(current))
        ? new Intl.DateTimeFormat(locale, { timeStyle }).format(date)
        : new Intl.DateTimeFormat(locale, { dateStyle: "medium", timeStyle }).format(date);
  }

  return (
    <time dateTime={iso} title={title} className={className}>
      {text}
    </time>
  );
}
