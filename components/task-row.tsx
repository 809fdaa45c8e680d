"use client";

import Link from "next/link";
import { useId, useState } from "react";
import { useCancelTask, useConversations } from "@/lib/client/queries";
import { isCancelling, isTaskActive, type PublicTask, type TaskStatus } from "@/lib/client/tasks";
import { failureWords } from "@/lib/client/error-words";
import { useI18n } from "@/lib/client/i18n";
import { DeliverySummary, OvertimeSummary } from "./delivery-summary";
import { AlertIcon, ChatIcon, ChevronIcon } from "./icons";
import { LocalTime } from "./local-time";
import { progressCount, progressWords, TaskProgress } from "./task-progress";
import { ProviderWait } from "./task-usage";
import { TaskSources } from "./task-sources";
import { OutcomeBadge, StatusBadge, statusKey } from "./task-badges";
import { TaskDetails } from "./task-details";
import { CancelTaskButton } from "./cancel-task-button";
import { Button } from "./ui/button";
import { cn } from "./ui/cn";

/** One task in the sheet: its card (status, times, progress, how it ended, promise), details and cancel. */
export function TaskRow({
  task,
  cancelPending,
  showConversation,
  onNavigate,
}: {
  task: PublicTask;
  cancelPending: boolean;
  showConversation: boolean;
  onNavigate: () => void;
}) {
  const { t } = useI18n();
  const [open, setOpen] = useState(false);
  const detailsId = useId();
  const titleId = useId();
  const cancel = useCancelTask();
  const active = isTaskActive(task.status);
  const cancelling = isCancelling(task, cancelPending);

  return (
    <li
      aria-labelledby={titleId}
      data-task-id={task.id}
      data-status={task.status}
      className={cn(
        "rounded-xl border border-border p-3",
        // An ended task reads as ended at a glance: flat, tinted by how it ended.
        active ? "bg-surface shadow-sm" : cn("border-l-4 bg-subtle/40", END_EDGE[task.status]),
      )}
    >
      <div className="flex flex-wrap items-start gap-x-2 gap-y-1">
        <h4 id={titleId} className="min-w-0 flex-1 text-sm font-semibold [overflow-wrap:anywhere]">
          {task.title}
        </h4>
        <StatusBadge status={task.status} />
      </div>

      {showConversation && <ConversationLink id={task.conversationId} onNavigate={onNavigate} />}

      <TaskTimes task={task} />

      <TaskProgress task={task} className="mt-2" />
      <ProviderWait task={task} compact className="mt-2" />
      <TaskSources task={task} compact className="mt-1" />

      {/* Ended: how it ended, never its last progress line ("Planned 6 sections…" on a cancelled task). */}
      {!active && <TaskEnd task={task} />}

      {active && task.progress && (
        <p className="mt-2 line-clamp-2 text-sm [overflow-wrap:anywhere]" title={task.progress.text}>
          <span className="sr-only">{t("latestProgress")}: </span>
          {task.progress.text}
        </p>
      )}

      {task.delivery.mode !== "none" && (
        <p className="mt-2 flex flex-wrap items-center gap-2 text-xs text-muted">
          <DeliverySummary
            mode={task.delivery.mode}
            dueAt={task.delivery.dueAt}
            reportIfUnfinished={task.delivery.reportIfUnfinished}
          />
          <OvertimeSummary delivery={task.delivery} />
          {/* A promise that ended with a cancel or a failure says so, never "missed"; one still ahead needs no chip:
              the time beside it says when. */}
          {(task.delivery.outcome || task.status === "cancelled" || task.status === "failed") && (
            <OutcomeBadge outcome={task.delivery.outcome ?? task.status} />
          )}
        </p>
      )}

      {task.status === "input_required" && <p className="mt-2 text-xs text-warn">{t("inputRequested")}</p>}

      <NotificationTrouble task={task} />

      <div className="mt-3 flex flex-wrap items-center gap-2">
        <Button
          variant="secondary"
          size="md"
          aria-expanded={open}
          aria-controls={detailsId}
          onClick={() => setOpen((v) => !v)}
          className="gap-1"
        >
          {t("viewDetails")}
          <ChevronIcon
            className={cn("size-3.5 transition-transform motion-reduce:transition-none", open && "rotate-180")}
          />
        </Button>
        {active && (
          <CancelTaskButton title={task.title} cancelling={cancelling} onConfirm={() => cancel.mutate(task)} />
        )}
      </div>

      <div id={detailsId} hidden={!open}>
        {open && <TaskDetails task={task} onNavigate={onNavigate} />}
      </div>
    </li>
  );
}

/** When it started (or was created) and when it finished (or last changed). */
function TaskTimes({ task }: { task: PublicTask }) {
  const { t } = useI18n();
  return (
    <p className="mt-1 flex flex-wrap gap-x-3 text-xs text-muted">
      {task.startedAt ? (
        <span>
          {t("timeStarted")} <LocalTime iso={task.startedAt} seconds />
        </span>
      ) : (
        <span>
          {t("timeCreated")} <LocalTime iso={task.createdAt} seconds />
        </span>
      )}
      {task.completedAt ? (
        <span>
          {t("timeFinished")} <LocalTime iso={task.completedAt} seconds />
        </span>
      ) : (
        <span>
          {t("timeUpdated")} <LocalTime iso={task.updatedAt} seconds />
        </span>
      )}
    </p>
  );
}

/** A notice that is being retried or has stopped trying, with its error. */
function NotificationTrouble({ task }: { task: PublicTask }) {
  const { t } = useI18n();
  const notification = task.notification;
  if (notification.status !== "retry" && notification.status !== "dead_letter") return null;
  return (
    <p
      data-notification={notification.status}
      className={cn(
        "mt-2 flex items-start gap-1.5 text-xs [overflow-wrap:anywhere]",
        notification.status === "dead_letter" ? "text-danger" : "text-warn",
      )}
    >
      <AlertIcon className="mt-px size-3.5 shrink-0" />
      <span>
        {notification.status === "retry" ? t("notifRetrying", { count: notification.attempts }) : t("notifStopped")}
        {notification.error ? `: ${notification.error}` : ""}
      </span>
    </p>
  );
}

const END_EDGE: Partial<Record<TaskStatus, string>> = {
  succeeded: "border-l-green-600",
  failed: "border-l-red-600",
  cancelled: "border-l-slate-400",
  deadline_exceeded: "border-l-amber-500",
};

const END_KEY = {
  succeeded: "taskEndSucceeded",
  cancelled: "taskEndCancelled",
  deadline_exceeded: "taskEndStopped",
} as const;

/** The sentence an ended task's card leads with, and how far it got by the same count the bar showed. */
export function TaskEnd({ task }: { task: PublicTask }) {
  const { t } = useI18n();
  const count = progressCount(task);
  const failed = task.status === "failed";
  const sentence = failed
    ? `${t(statusKey(task.status))}: ${task.error ? failureWords(t, task) : t("taskEndFailed")}`
    : t(END_KEY[task.status as keyof typeof END_KEY] ?? "taskEndSucceeded");
  return (
    <p data-testid="task-end" data-status={task.status} className="mt-2 text-sm [overflow-wrap:anywhere]">
      <span className={cn("font-medium", failed ? "text-danger" : task.status === "succeeded" ? "text-ok" : "text-fg")}>
        {sentence}
      </span>
      {count && task.status !== "succeeded" && (
        <span className="mt-0.5 block text-xs text-muted tabular-nums">{progressWords(t, count)}</span>
      )}
    </p>
  );
}

/** Where a task lives, on the all-conversations list. Uses the sidebar's cached list: no extra request. */
function ConversationLink({ id, onNavigate }: { id: string; onNavigate: () => void }) {
  const { t } = useI18n();
  const conversations = useConversations();
  const title = conversations.data?.find((c) => c.id === id)?.title.trim() || t("untitled");
  return (
    <p className="mt-0.5 text-xs">
      <Link
        href={`/c/${encodeURIComponent(id)}`}
        onClick={onNavigate}
        className="inline-flex max-w-full items-center gap-1 text-accent-text underline-offset-4 hover:underline"
      >
        <ChatIcon className="size-3.5 shrink-0" />
        <span className="truncate">{title}</span>
      </Link>
    </p>
  );
}
