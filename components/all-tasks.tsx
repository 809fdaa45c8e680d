"use client";

import Link from "next/link";
import { useState } from "react";
import type { PublicTask } from "@/lib/contract/task";
import type { MessageKey } from "@/lib/i18n/dictionaries";
import { useConversation, useConversations, useTaskList } from "@/lib/client/queries";
import { isTaskActive } from "@/lib/client/tasks";
import { useI18n } from "@/lib/client/i18n";
import { LocalTime } from "./local-time";
import { StatusBadge } from "./task-badges";
import { Button } from "./ui/button";
import { cn } from "./ui/cn";
import { InlineAlert } from "./ui/inline-alert";

/**
 * Every task of the account (the list the feed keeps current for scope
 * `null`), with the chat it belongs to: research running in another chat is
 * visible from anywhere, and one click away.
 */
type StatusFilter = "all" | "running" | "done" | "failed";

const FILTERS: { value: StatusFilter; key: MessageKey }[] = [
  { value: "all", key: "tasksFilterAll" },
  { value: "running", key: "tasksFilterRunning" },
  { value: "done", key: "tasksFilterDone" },
  { value: "failed", key: "tasksFilterFailed" },
];

/** Which filter a task falls under: still working, succeeded, or ended without a result (failed, cancelled, out of time). */
export function statusGroup(status: PublicTask["status"]): Exclude<StatusFilter, "all"> {
  if (isTaskActive(status)) return "running";
  return status === "succeeded" ? "done" : "failed";
}

export function AllTasks() {
  const { t } = useI18n();
  const tasks = useTaskList(null);
  const conversations = useConversations();
  const [filter, setFilter] = useState<StatusFilter>("all");
  const titles = new Map((conversations.data ?? []).map((c) => [c.id, c.title.trim() || t("untitled")]));
  const list = tasks.data ?? [];
  const shown = filter === "all" ? list : list.filter((task) => statusGroup(task.status) === filter);
  const running = shown.filter((task) => isTaskActive(task.status));
  const done = shown.filter((task) => !isTaskActive(task.status));

  return (
    <div className="min-h-0 flex-1 overflow-y-auto">
      <div className="mx-auto w-full max-w-3xl space-y-6 px-4 py-6 sm:px-6">
        <p className="text-sm text-muted">{t("allTasksLead")}</p>
        {list.length > 0 && (
          <div role="group" aria-label={t("tasksFilter")} className="flex flex-wrap gap-1.5" data-testid="tasks-filter">
            {FILTERS.map((f) => (
              <button
                key={f.value}
                type="button"
                aria-pressed={filter === f.value}
                onClick={() => setFilter(f.value)}
                className={cn(
                  "rounded-full border px-3 py-1 text-xs font-medium",
                  filter === f.value
                    ? "border-accent bg-accent text-accent-fg"
                    : "border-border text-fg hover:bg-subtle",
                )}
              >
                {t(f.key)}
              </button>
            ))}
          </div>
        )}
        {tasks.isPending && <div className="h-16 animate-pulse rounded-xl bg-subtle" aria-hidden="true" />}
        {tasks.isError && !tasks.data && (
          <InlineAlert
            actions={
              <Button variant="secondary" size="sm" onClick={() => void tasks.refetch()}>
                {t("reload")}
              </Button>
            }
          >
            {t("allTasksFailed")}
          </InlineAlert>
        )}
        {tasks.data && list.length === 0 && (
          <p className="py-10 text-center text-sm text-muted">{t("allTasksEmpty")}</p>
        )}
        {list.length > 0 && shown.length === 0 && (
          <p className="py-10 text-center text-sm text-muted">{t("tasksFilterEmpty")}</p>
        )}
        {running.length > 0 && (
          <TaskSection label={t("allTasksRunning")} tasks={running} titles={titles} listed={conversations.isSuccess} />
        )}
        {done.length > 0 && (
          <TaskSection label={t("allTasksDone")} tasks={done} titles={titles} listed={conversations.isSuccess} />
        )}
      </div>
    </div>
  );
}

function TaskSection({
  label,
  tasks,
  titles,
  listed,
}: {
  label: string;
  tasks: PublicTask[];
  titles: Map<string, string>;
  listed: boolean;
}) {
  return (
    <section aria-label={label} className="space-y-2">
      <h2 className="text-xs font-medium tracking-wide text-muted uppercase">{label}</h2>
      <ul className="divide-y divide-border rounded-xl border border-border bg-surface">
        {tasks.map((task) => (
          <TaskRow key={task.id} task={task} chat={titles.get(task.conversationId)} listed={listed} />
        ))}
      </ul>
    </section>
  );
}

const LINK_CLASS = "rounded-md border border-border px-2.5 py-1 text-xs font-medium text-fg hover:bg-subtle";

/**
 * One task. A chat missing from the list (it holds the newest 100) is looked up
 * on its own: a deleted one (404) says so and offers no link into it.
 */
function TaskRow({ task, chat, listed }: { task: PublicTask; chat: string | undefined; listed: boolean }) {
  const { t } = useI18n();
  const lookup = useConversation(listed && chat === undefined ? task.conversationId : null);
  const title = chat ?? (lookup.data ? lookup.data.title.trim() || t("untitled") : undefined);
  const deleted = chat === undefined && lookup.isSuccess && lookup.data === null;
  const chatHref = `/c/${encodeURIComponent(task.conversationId)}`;
  return (
    <li
      aria-label={task.title}
      data-status={task.status}
      data-chat-deleted={deleted || undefined}
      className="flex flex-col gap-1.5 px-4 py-3 sm:flex-row sm:items-center sm:gap-4"
    >
      <div className="min-w-0 flex-1">
        {deleted ? (
          <p className="truncate text-sm font-medium text-fg">{task.title}</p>
        ) : (
          <Link href={chatHref} className="block truncate text-sm font-medium text-fg hover:underline">
            {task.title}
          </Link>
        )}
        <p className="truncate text-xs text-muted">
          {deleted ? t("tasksDeletedChat") : title ? t("taskInChat", { title }) : null}
          {deleted || title ? " · " : null}
          <LocalTime iso={task.updatedAt} />
        </p>
        {task.progress && isTaskActive(task.status) && (
          <p className="mt-1 line-clamp-2 text-xs text-muted">{task.progress.text}</p>
        )}
      </div>
      <div className="flex shrink-0 flex-wrap items-center gap-2">
        <StatusBadge status={task.status} />
        {!deleted && task.latestPublicationId && (
          // The newest publication in its chat, where the report view opens from (#pub-… scrolls to it).
          <Link
            href={`${chatHref}#pub-${encodeURIComponent(task.latestPublicationId)}`}
            aria-label={`${t("tasksOpenReport")}: ${task.title}`}
            className={LINK_CLASS}
          >
            {t("tasksOpenReport")}
          </Link>
        )}
        {!deleted && (
          <Link href={chatHref} aria-label={`${t("openChat")}: ${task.title}`} className={LINK_CLASS}>
            {t("openChat")}
          </Link>
        )}
      </div>
    </li>
  );
}
