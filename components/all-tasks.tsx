"use client";

import Link from "next/link";
import type { PublicTask } from "@/lib/contract/task";
import { useConversations, useTaskList } from "@/lib/client/queries";
import { isTaskActive } from "@/lib/client/tasks";
import { useI18n } from "@/lib/client/i18n";
import { LocalTime } from "./local-time";
import { StatusBadge } from "./task-badges";
import { Button } from "./ui/button";
import { InlineAlert } from "./ui/inline-alert";

/**
 * Every task of the account (the list the feed keeps current for scope
 * `null`), with the chat it belongs to: research running in another chat is
 * visible from anywhere, and one click away.
 */
export function AllTasks() {
  const { t } = useI18n();
  const tasks = useTaskList(null);
  const conversations = useConversations();
  const titles = new Map((conversations.data ?? []).map((c) => [c.id, c.title.trim() || t("untitled")]));
  const list = tasks.data ?? [];
  const running = list.filter((task) => isTaskActive(task.status));
  const done = list.filter((task) => !isTaskActive(task.status));

  return (
    <div className="min-h-0 flex-1 overflow-y-auto">
      <div className="mx-auto w-full max-w-3xl space-y-6 px-4 py-6 sm:px-6">
        <p className="text-sm text-muted">{t("allTasksLead")}</p>
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
        {tasks.data && list.length === 0 && <p className="py-10 text-center text-sm text-muted">{t("allTasksEmpty")}</p>}
        {running.length > 0 && <TaskSection label={t("allTasksRunning")} tasks={running} titles={titles} />}
        {done.length > 0 && <TaskSection label={t("allTasksDone")} tasks={done} titles={titles} />}
      </div>
    </div>
  );
}

function TaskSection({ label, tasks, titles }: { label: string; tasks: PublicTask[]; titles: Map<string, string> }) {
  const { t } = useI18n();
  return (
    <section aria-label={label} className="space-y-2">
      <h2 className="text-xs font-medium tracking-wide text-muted uppercase">{label}</h2>
      <ul className="divide-y divide-border rounded-xl border border-border bg-surface">
        {tasks.map((task) => {
          const chat = titles.get(task.conversationId);
          return (
            <li key={task.id} aria-label={task.title} data-status={task.status} className="flex flex-col gap-1.5 px-4 py-3 sm:flex-row sm:items-center sm:gap-4">
              <div className="min-w-0 flex-1">
                <Link href={`/c/${task.conversationId}`} className="block truncate text-sm font-medium text-fg hover:underline">
                  {task.title}
                </Link>
                <p className="truncate text-xs text-muted">
                  {chat ? t("taskInChat", { title: chat }) : null}
                  {chat ? " · " : null}
                  <LocalTime iso={task.updatedAt} />
                </p>
                {task.progress && isTaskActive(task.status) && <p className="mt-1 line-clamp-2 text-xs text-muted">{task.progress.text}</p>}
              </div>
              <div className="flex shrink-0 items-center gap-2">
                <StatusBadge status={task.status} />
                <Link
                  href={`/c/${task.conversationId}`}
                  aria-label={`${t("openChat")}: ${task.title}`}
                  className="rounded-md border border-border px-2.5 py-1 text-xs font-medium text-fg hover:bg-subtle"
                >
                  {t("openChat")}
                </Link>
              </div>
            </li>
          );
        })}
      </ul>
    </section>
  );
}
