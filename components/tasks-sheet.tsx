"use client";

import * as Dialog from "@radix-ui/react-dialog";
import { hashKey, useQueryClient } from "@tanstack/react-query";
import { useEffect, useId, useRef, useState } from "react";
import { queryKeys } from "@/lib/client/cache";
import { usePendingCancels, useTaskList } from "@/lib/client/queries";
import {
  countActive,
  splitTasks,
  statusChanges,
  type PublicTask,
  type TaskScope,
  type TaskStatus,
} from "@/lib/client/tasks";
import { useHydrated } from "@/lib/client/use-hydrated";
import { useI18n } from "@/lib/client/i18n";
import { useFeedLive } from "@/lib/client/feed-connection";
import { SpinnerIcon, TasksIcon } from "./icons";
import { statusKey } from "./task-badges";
import { CloseButton } from "./close-button";
import { TaskRow } from "./task-row";
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
