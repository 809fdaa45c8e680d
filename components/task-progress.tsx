"use client";

import { useSyncExternalStore } from "react";
import type { PublicTask } from "@/lib/contract/task";
import { useI18n, type I18n } from "@/lib/client/i18n";
import { etaSeconds } from "@/lib/client/report";
import { isTaskActive } from "@/lib/client/tasks";

/** A duration in the reader's words, down to the second below an hour: "about 1 min 05 s left". */
function durationWords(t: I18n["t"], seconds: number): string {
  const s = Math.max(0, Math.round(seconds));
  if (s < 60) return t("durationSeconds", { s });
  if (s < 3600) return t("durationMinutes", { m: Math.floor(s / 60), s: String(s % 60).padStart(2, "0") });
  return t("durationHours", { h: Math.floor(s / 3600), m: Math.floor((s % 3600) / 60) });
}

// One shared one-second clock for every visible countdown, running only while one is shown.
let secondNow = 0;
const secondListeners = new Set<() => void>();
let secondTimer: ReturnType<typeof setInterval> | null = null;

function subscribeSeconds(listener: () => void): () => void {
  secondListeners.add(listener);
  if (secondTimer === null) {
    secondNow = Date.now();
    secondTimer = setInterval(() => {
      secondNow = Date.now();
      for (const l of secondListeners) l();
    }, 1000);
  }
  return () => {
    secondListeners.delete(listener);
    if (secondListeners.size === 0 && secondTimer !== null) {
      clearInterval(secondTimer);
      secondTimer = null;
    }
  };
}

const noSubscription = () => () => {};

/** Now, ticking each second while `on`; 0 on the server, so server and first client render agree. */
function useSecondClock(on: boolean): number {
  return useSyncExternalStore(
    on ? subscribeSeconds : noSubscription,
    () => (on ? secondNow || (secondNow = Date.now()) : 0),
    () => 0,
  );
}

/**
 * The one count of a task's progress, said the same way wherever it shows. Native
 * research plans first (a step of its own), then writes one section per step; its
 * progress lines say "Planned 6 sections" and "Researched 2/6", so its count is
 * sections done of sections planned, not steps. Other drivers report plain steps.
 */
export function progressCount(
  task: Pick<PublicTask, "driver" | "steps">,
): { done: number; total: number; unit: "sections" | "steps" } | null {
  if (!task.steps) return null;
  const { done, total } = task.steps;
  if (task.driver === "research" && total > 1)
    return { done: Math.max(0, done - 1), total: total - 1, unit: "sections" };
  return { done, total, unit: "steps" };
}

export function progressWords(t: I18n["t"], count: NonNullable<ReturnType<typeof progressCount>>): string {
  const { done, total } = count;
  if (count.unit === "steps") return t("progressSteps", { done, total });
  return total === 1 ? t("progressSectionsOfOne", { done }) : t("progressSections", { done, total });
}

/**
 * Sections (or steps) done of those planned, and the time left at the pace of the steps so
 * far (lib/client/report.ts#etaSeconds). Only while the task works and its
 * driver reports a step count.
 */
export function TaskProgress({
  task,
  className,
}: {
  task: Pick<PublicTask, "status" | "steps" | "startedAt" | "driver">;
  className?: string;
}) {
  const { t } = useI18n();
  const active = isTaskActive(task.status) && task.steps !== null;
  const now = useSecondClock(active);
  const count = progressCount(task);
  if (!active || !task.steps || !count) return null;
  const { done, total } = count;
  // The pace comes from the driver's own steps (planning included): that is what took the time.
  const eta = now ? etaSeconds(task.steps, task.startedAt, now) : null;
  const left =
    task.steps.done >= task.steps.total || eta === 0
      ? t("progressEtaSoon")
      : eta === null
        ? t("progressEtaUnknown")
        : t("progressEta", { time: durationWords(t, eta) });
  const steps = progressWords(t, count);
  return (
    <div className={className} data-testid="task-progress">
      <div
        role="progressbar"
        aria-label={t("progressBar")}
        aria-valuemin={0}
        aria-valuemax={total}
        aria-valuenow={done}
        aria-valuetext={`${steps} · ${left}`}
        className="h-1.5 overflow-hidden rounded-full bg-subtle"
      >
        <div
          className="h-full rounded-full bg-accent transition-[width] duration-500 motion-reduce:transition-none"
          style={{ width: `${total > 0 ? Math.round((done / total) * 100) : 0}%` }}
        />
      </div>
      <p className="mt-1 flex flex-wrap justify-between gap-x-3 text-xs text-muted tabular-nums">
        <span>{steps}</span>
        <span>{left}</span>
      </p>
    </div>
  );
}

/**
 * How long the task has worked, to the second (from startedAt to completedAt or
 * now), with the same count the bar shows: the details' answer to "is it stuck?".
 */
export function TaskElapsed({
  task,
}: {
  task: Pick<PublicTask, "status" | "steps" | "startedAt" | "completedAt" | "driver">;
}) {
  const { t } = useI18n();
  const running = task.completedAt === null && isTaskActive(task.status);
  const now = useSecondClock(running && task.startedAt !== null);
  if (!task.startedAt) return null;
  const end = task.completedAt ? Date.parse(task.completedAt) : now;
  if (!end) return null;
  const seconds = (end - Date.parse(task.startedAt)) / 1000;
  const count = progressCount(task);
  return (
    <p data-testid="task-elapsed" className="flex flex-wrap gap-x-3 text-xs text-muted tabular-nums">
      <span>{t(running ? "taskElapsedRunning" : "taskElapsedDone", { time: durationWords(t, seconds) })}</span>
      {count && <span>{progressWords(t, count)}</span>}
    </p>
  );
}
