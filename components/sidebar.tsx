"use client";

import Link from "next/link";
import { useState, type ReactNode } from "react";
import { useI18n } from "@/lib/client/i18n";
import { useTaskList } from "@/lib/client/queries";
import { isTaskActive } from "@/lib/client/tasks";
import { ListIcon } from "./chat-icons";
import { ConversationList } from "./conversation-list";
import { ConversationSearchBox, ConversationSearchResults } from "./conversation-search";
import { HeraldMark } from "./icons";
import { NewChatButton } from "./new-chat-button";
import { cn } from "./ui/cn";

export function Sidebar({
  activeId,
  onNavigate,
  closeButton,
  allTasksActive = false,
}: {
  activeId?: string;
  onNavigate?: () => void;
  closeButton?: ReactNode;
  /** The all-tasks page is open. */
  allTasksActive?: boolean;
}) {
  const { t } = useI18n();
  const [query, setQuery] = useState("");
  const searching = query.trim().length > 0;
  return (
    <div className="flex h-full min-h-0 flex-col">
      <div className="flex h-14 shrink-0 items-center gap-2.5 px-4">
        <HeraldMark />
        <span className="flex-1 text-base font-semibold tracking-tight">{t("appName")}</span>
        {closeButton}
      </div>
      <div className="shrink-0 space-y-2 px-3 pb-3">
        <NewChatButton variant="full" onCreated={onNavigate} />
        <AllTasksLink active={allTasksActive} onNavigate={onNavigate} />
        <ConversationSearchBox value={query} onChange={setQuery} />
      </div>
      {searching ? (
        <ConversationSearchResults query={query} onNavigate={onNavigate} />
      ) : (
        <ConversationList activeId={activeId} onNavigate={onNavigate} />
      )}
    </div>
  );
}

/** Every task of the account, from any chat: research running elsewhere is one click away. */
function AllTasksLink({ active, onNavigate }: { active: boolean; onNavigate?: () => void }) {
  const { t } = useI18n();
  const tasks = useTaskList(null, { poll: false });
  const running = tasks.data?.filter((task) => isTaskActive(task.status)).length ?? 0;
  return (
    <Link
      href="/tasks"
      onClick={onNavigate}
      aria-current={active ? "page" : undefined}
      className={cn(
        "flex h-9 items-center gap-2 rounded-lg px-3 text-sm font-medium",
        active ? "bg-accent-soft text-accent-text" : "text-fg hover:bg-subtle",
      )}
    >
      <ListIcon className="size-4 text-muted" />
      <span className="flex-1">{t("allTasks")}</span>
      {running > 0 && (
        <span
          data-testid="all-tasks-running"
          className="rounded-full bg-accent px-1.5 text-xs font-semibold text-accent-fg"
        >
          <span aria-hidden="true">{running}</span>
          <span className="sr-only">{`${running} ${t("allTasksRunning")}`}</span>
        </span>
      )}
    </Link>
  );
}
