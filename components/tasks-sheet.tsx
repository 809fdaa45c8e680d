"use client";

import * as Dialog from "@radix-ui/react-dialog";
import Link from "next/link";
import { hashKey, useQueryClient } from "@tanstack/react-query";
import { useEffect, useId, useRef, useState } from "react";
import { queryKeys } from "@/lib/client/cache";
import { useCancelTask, useConversations, usePendingCancels, useTaskList } from "@/lib/client/queries";
import {
  countActive,
  isCancelling,
  isTaskActive,
  splitTasks,
  statusChanges,
  type PublicTask,
  type TaskScope,
  type TaskStatus,
} from "@/lib/client/tasks";
import { failureWords } from "@/lib/client/error-words";
import { useHydrated } from "@/lib/client/use-hydrated";
import { useI18n } from "@/lib/client/i18n";
import { useFeedLive } from "@/lib/client/feed-connection";
import { DeliverySummary, OvertimeSummary } from "./delivery-summary";
import { AlertIcon, ChatIcon, ChevronIcon, SpinnerIcon, TasksIcon } from "./icons";
import { LocalTime } from "./local-time";
import { progressCount, progressWords, TaskProgress } from "./task-progress";
import { ProviderWait } from "./task-usage";
import { TaskSources } from "./task-sources";
import { OutcomeBadge, StatusBadge, statusKey } from "./task-badges";
import { TaskDetails } from "./task-details";
import { CancelTaskButton } from "./cancel-task-button";
import { CloseButton } from "./close-button";
import { Toaster } from "./toaster";
import { Button } from "./ui/button";
import { cn } from "./ui/cn";
import { InlineAlert } from "./ui/inline-alert";

/**
 * The header's "Background tasks" button (badge: active count) and the sheet
 * it opens. Lists the open conversation's tasks, or all of the account's on
 * pages without one. Always mounted, so the badge and the status
 * announcements work with the sheet closed.
 */
export function TasksSheet({ conversationId = null }: { conversationId?: TaskScope }) {
  const { t } = useI18n();
  const hydrated = useHydrated();
  const [open, setOpen] = useState(false);
  const sheetRef = useRef<HTMLDivElement>(null);
  const list = useTaskList(conversationId);
  const active = countActive(list.data);
  const descriptionId = useId();
  const announcement = useStatusAnnouncements(conversationId, open);
  const live = useFeedLive();

  return (
    <>
      <Dialog.Root open={open} onOpenChange={setOpen}>
        <Dialog.Trigger asChild>
          <Button
            variant="ghost"
            size="icon"
            disabled={!hydrated}
            aria-describedby={descriptionId}
            data-testid="tasks-trigger"
            className="relative"
          >
            <TasksIcon />
            <span className="sr-only">{t("backgroundTasks")}</span>
            {active > 0 && (
              <span
                aria-hidden="true"
                data-testid="tasks-badge"
                data-stale={!live || undefined}
                className={cn(
                  "absolute -top-0.5 -right-0.5 flex h-4.5 min-w-4.5 items-center justify-center rounded-full bg-accent px-1 text-[0.65rem] leading-none font-semibold text-accent-fg ring-2 ring-surface",
                  !live && "opacity-60 grayscale",
                )}
              >
                {active > 99 ? "99+" : active}
              </span>
            )}
          </Button>
        </Dialog.Trigger>
        <span id={descriptionId} className="sr-only">
          {active > 0 ? t("activeCount", { count: active }) : t("noActiveTasks")}
        </span>
        <Dialog.Portal>
          <Dialog.Overlay className="fixed inset-0 z-40 bg-black/40" />
          <Dialog.Content
            ref={sheetRef}
            // Escape from a dialog stacked over the sheet (the cancel confirmation, portaled
            // outside it) closes that dialog only: both layers hear the same keydown.
            onEscapeKeyDown={(e) => {
              if (!(e.target instanceof Node) || !sheetRef.current?.contains(e.target)) e.preventDefault();
            }}
            data-testid="tasks-sheet"
            className="fixed inset-y-0 right-0 z-50 flex w-full flex-col border-l border-border bg-bg shadow-2xl focus:outline-none sm:max-w-md"
          >
            <div className="flex shrink-0 items-start gap-2 border-b border-border bg-surface px-4 pt-[max(0.75rem,env(safe-area-inset-top))] pb-3">
              <div className="min-w-0 flex-1">
                <Dialog.Title className="text-base font-semibold">{t("backgroundTasks")}</Dialog.Title>
                <Dialog.Description className="text-xs text-muted">
                  {conversationId ? t("tasksScopeConversation") : t("tasksScopeAll")}
                </Dialog.Description>
              </div>
              <CloseButton className="-mr-1" />
            </div>
            <div className="min-h-0 flex-1 overflow-y-auto overscroll-contain px-4 pt-4 pb-[max(1rem,env(safe-area-inset-bottom))]">
              <SheetBody list={list} showConversation={conversationId === null} onNavigate={() => setOpen(false)} />
            </div>
            {/* Everything outside a modal is hidden from assistive tech: announce and toast from in here meanwhile. */}
            <LiveRegion text={announcement.inSheet ? announcement.text : ""} />
            <Toaster />
          </Dialog.Content>
        </Dialog.Portal>
      </Dialog.Root>
      <LiveRegion text={announcement.inSheet ? "" : announcement.text} />
    </>
  );
}

function LiveRegion({ text }: { text: string }) {
  return (
    <div aria-live="polite" aria-atomic="true" data-testid="tasks-live" className="sr-only">
      {text}
    </div>
  );
}

/**
 * "Title: status" for each status change the list cache sees, whichever way
 * it arrived (feed or poll). Re-reading an unchanged list announces nothing.
 */
function useStatusAnnouncements(scope: TaskScope, sheetOpen: boolean): { text: string; inSheet: boolean } {
  const qc = useQueryClient();
  const { t, locale } = useI18n();
  const known = useRef(new Map<string, TaskStatus>());
  // Spoken by the region that is exposed when it happened; opening or closing the sheet doesn't repeat it.
  const [announcement, setAnnouncement] = useState({ text: "", inSheet: false });
  const open = useRef(sheetOpen);
  useEffect(() => {
    open.current = sheetOpen;
  }, [sheetOpen]);

  useEffect(() => {
    const key = queryKeys.taskList(scope);
    const hash = hashKey(key);
    function observe(list: readonly PublicTask[] | undefined): void {
      if (!list) return;
      const { known: next, changed } = statusChanges(known.current, list);
      known.current = next;
      if (changed.length === 0) return;
      const text = changed
        .map((task) =>
          t("announceStatus", { title: task.title, status: t(statusKey(task.status)).toLocaleLowerCase(locale) }),
        )
        .join(". ");
      setAnnouncement({ text, inSheet: open.current });
    }
    // Whatever is cached now is the baseline (first sightings are silent).
    observe(qc.getQueryData<PublicTask[]>(key));
    return qc.getQueryCache().subscribe((event) => {
      if (event.type === "updated" && event.query.queryHash === hash && event.action.type === "success") {
        observe(event.query.state.data as PublicTask[] | undefined);
      }
    });
  }, [qc, scope, t, locale]);

  return announcement;
}

function SheetBody({
  list,
  showConversation,
  onNavigate,
}: {
  list: ReturnType<typeof useTaskList>;
  showConversation: boolean;
  onNavigate: () => void;
}) {
  const { t } = useI18n();
  const tasks = list.data;

  if (!tasks) {
    if (list.isError) {
      return (
        <InlineAlert
          stacked
          actions={
            <Button
              variant="danger"
              size="lg"
              onClick={() => void list.refetch()}
              disabled={list.isFetching}
              className="disabled:opacity-60"
            >
              {t("tryAgain")}
            </Button>
          }
        >
          {t("tasksFailed")}
        </InlineAlert>
      );
    }
    return (
      <div aria-busy="true" className="space-y-3">
        <p className="flex items-center gap-2 text-sm text-muted">
          <SpinnerIcon className="size-4" />
          {t("loadingTasks")}
        </p>
        {[0, 1].map((i) => (
          <div
            key={i}
            aria-hidden="true"
            className="h-24 animate-pulse rounded-xl bg-subtle motion-reduce:animate-none"
          />
        ))}
      </div>
    );
  }

  if (tasks.length === 0) {
    return (
      <div className="flex flex-col items-center gap-2 px-4 py-16 text-center">
        <TasksIcon className="size-8 text-muted" />
        <p className="font-medium">{t("noTasks")}</p>
        <p className="max-w-xs text-sm text-muted">{t("noTasksHint")}</p>
      </div>
    );
  }

  const { active, recent } = splitTasks(tasks);
  return (
    <div className="space-y-6">
      {list.isRefetchError && (
        <InlineAlert
          tone="warn"
          size="xs"
          actions={
            <Button variant="warn-outline" size="xs" onClick={() => void list.refetch()}>
              {t("tryAgain")}
            </Button>
          }
        >
          {t("tasksStale")}
        </InlineAlert>
      )}
      <TaskSection
        title={t("tasksActive")}
        tasks={active}
        empty={t("noActiveInSection")}
        showConversation={showConversation}
        onNavigate={onNavigate}
      />
      <TaskSection
        title={t("tasksRecent")}
        tasks={recent}
        empty={t("noRecentInSection")}
        showConversation={showConversation}
        onNavigate={onNavigate}
      />
    </div>
  );
}

function TaskSection({
  title,
  tasks,
  empty,
  showConversation,
  onNavigate,
}: {
  title: string;
  tasks: PublicTask[];
  empty: string;
  showConversation: boolean;
  onNavigate: () => void;
}) {
  const headingId = useId();
  const pendingCancels = usePendingCancels();
  return (
    <section aria-labelledby={headingId}>
      <h3
        id={headingId}
        className="mb-2 flex items-center gap-2 text-xs font-semibold tracking-wide text-muted uppercase"
      >
        {title}
        {/* The list says how many items it has; keep the heading's name exactly "Active" / "Recent". */}
        <span aria-hidden="true" className="rounded-full bg-subtle px-1.5 py-px font-mono text-[0.7rem] normal-case">
          {tasks.length}
        </span>
      </h3>
      {tasks.length === 0 ? (
        <p className="rounded-xl border border-dashed border-border px-3 py-4 text-center text-sm text-muted">
          {empty}
        </p>
      ) : (
        <ul className="space-y-3">
          {tasks.map((task) => (
            <TaskRow
              key={task.id}
              task={task}
              cancelPending={pendingCancels.has(task.id)}
              showConversation={showConversation}
              onNavigate={onNavigate}
            />
          ))}
        </ul>
      )}
    </section>
  );
}

function TaskRow({
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
