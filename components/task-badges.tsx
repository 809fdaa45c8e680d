"use client";

import type { SVGProps } from "react";
import type { TaskStatus } from "@/lib/client/tasks";
import { useI18n } from "@/lib/client/i18n";
import { useFeedLive } from "@/lib/client/feed-connection";
import { isTerminalStatus } from "@/lib/contract/task";
import type { MessageKey } from "@/lib/i18n/dictionaries";
import {
  BanIcon,
  CheckCircleIcon,
  ClockIcon,
  DashedCircleIcon,
  QuestionIcon,
  RefreshIcon,
  SpinnerIcon,
  XCircleIcon,
} from "./icons";
import { cn } from "./ui/cn";

// Each status has its own icon and colour, and always its word: colour is never the only signal.
const STATUS_LOOK: Record<TaskStatus, { icon: (props: SVGProps<SVGSVGElement>) => React.JSX.Element; tone: string }> = {
  submitted: { icon: DashedCircleIcon, tone: "text-slate-600 bg-slate-100 dark:text-slate-300 dark:bg-slate-800" },
  queued: { icon: ClockIcon, tone: "text-sky-800 bg-sky-50 dark:text-sky-300 dark:bg-sky-950" },
  running: { icon: SpinnerIcon, tone: "text-indigo-700 bg-indigo-50 dark:text-indigo-300 dark:bg-indigo-950" },
  updating: { icon: RefreshIcon, tone: "text-violet-700 bg-violet-50 dark:text-violet-300 dark:bg-violet-950" },
  input_required: { icon: QuestionIcon, tone: "text-amber-800 bg-amber-50 dark:text-amber-300 dark:bg-amber-950" },
  succeeded: { icon: CheckCircleIcon, tone: "text-green-800 bg-green-50 dark:text-green-300 dark:bg-green-950" },
  failed: { icon: XCircleIcon, tone: "text-red-700 bg-red-50 dark:text-red-300 dark:bg-red-950" },
  cancelled: { icon: BanIcon, tone: "text-orange-800 bg-orange-50 dark:text-orange-300 dark:bg-orange-950" },
  deadline_exceeded: { icon: ClockIcon, tone: "text-amber-900 bg-amber-100 dark:text-amber-200 dark:bg-amber-950" },
};

export function statusKey(status: TaskStatus): MessageKey {
  return `status_${status}` as MessageKey;
}

export function StatusBadge({ status }: { status: TaskStatus }) {
  const { t } = useI18n();
  const live = useFeedLive();
  const look = STATUS_LOOK[status] ?? STATUS_LOOK.submitted;
  const Icon = look.icon;
  // With the feed down an active status is only the last thing we heard: greyed and still, never a live pulse.
  const stale = !live && !isTerminalStatus(status);
  return (
    <span
      data-status={status}
      data-stale={stale || undefined}
      title={stale ? t("staleStatus", { status: t(statusKey(status)) }) : undefined}
      className={cn(
        "inline-flex shrink-0 items-center gap-1 rounded-full px-2 py-0.5 text-xs font-medium",
        look.tone,
        stale && "opacity-60 grayscale [&_svg]:animate-none",
      )}
    >
      <Icon className="size-3.5" />
      {t(statusKey(status))}
    </span>
  );
}

const OUTCOME_KEYS: Record<string, MessageKey> = {
  on_time: "outcome_on_time",
  early: "outcome_early",
  missed: "outcome_missed",
  late: "outcome_late",
  stopped: "outcome_stopped",
  failed: "outcome_failed",
  cancelled: "outcome_cancelled",
  done: "outcome_done",
  input: "outcome_input",
};

const OUTCOME_TONE: Record<string, string> = {
  on_time: "bg-ok-soft text-ok border-ok/30",
  early: "bg-ok-soft text-ok border-ok/30",
  done: "bg-ok-soft text-ok border-ok/30",
  missed: "bg-warn-soft text-warn border-warn/30",
  late: "bg-warn-soft text-warn border-warn/30",
  input: "bg-warn-soft text-warn border-warn/30",
  stopped: "bg-danger-soft text-danger border-danger/30",
  failed: "bg-danger-soft text-danger border-danger/30",
  cancelled: "bg-subtle text-muted border-border-strong",
};

/** A delivery outcome in words (`on time`, `early`, `missed`, `late`, `stopped`, …). */
export function OutcomeBadge({ outcome }: { outcome: string }) {
  const { t } = useI18n();
  const key = OUTCOME_KEYS[outcome];
  return (
    <span
      data-outcome={outcome}
      className={cn(
        "inline-flex shrink-0 items-center rounded-full border px-2 py-0.5 text-xs font-medium",
        OUTCOME_TONE[outcome] ?? "border-border text-muted",
      )}
    >
      {key ? t(key) : outcome.replace(/_/g, " ")}
    </span>
  );
}
