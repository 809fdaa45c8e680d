"use client";

import Link from "next/link";
import { useConversations } from "@/lib/client/queries";
import { useI18n } from "@/lib/client/i18n";
import { LocalTime } from "./local-time";
import { Button } from "./ui/button";
import { cn } from "./ui/cn";
import { InlineAlert } from "./ui/inline-alert";

export function ConversationList({ activeId, onNavigate }: { activeId?: string; onNavigate?: () => void }) {
  const { t } = useI18n();
  const { data, isPending, isError, refetch } = useConversations();

  return (
    <nav aria-label={t("conversations")} className="min-h-0 flex-1 overflow-y-auto px-2 pb-4">
      {isPending && (
        <p className="px-3 py-2 text-sm text-muted" aria-live="polite">
          {t("loadingConversations")}
        </p>
      )}
      {isError && !data && (
        <InlineAlert
          framed={false}
          stacked
          icon={false}
          className="px-3 py-2"
          actions={
            <Button variant="secondary" size="sm" onClick={() => void refetch()}>
              {t("reload")}
            </Button>
          }
        >
          {t("conversationsFailed")}
        </InlineAlert>
      )}
      {data && data.length === 0 && <p className="px-3 py-2 text-sm text-muted">{t("noConversations")}</p>}
      {data && data.length > 0 && (
        <ul className="space-y-0.5">
          {data.map((conversation) => {
            const active = conversation.id === activeId;
            return (
              <li key={conversation.id}>
                <Link
                  href={`/c/${conversation.id}`}
                  onClick={onNavigate}
                  aria-current={active ? "page" : undefined}
                  className={cn(
                    "group flex flex-col gap-0.5 rounded-lg px-3 py-2 text-sm",
                    active ? "bg-accent-soft text-accent-text" : "text-fg hover:bg-subtle",
                  )}
                >
                  <span className={cn("truncate", active ? "font-semibold" : "font-medium")}>
                    {conversation.title.trim() || t("untitled")}
                  </span>
                  <LocalTime iso={conversation.updatedAt} className="text-xs text-muted" />
                </Link>
              </li>
            );
          })}
        </ul>
      )}
    </nav>
  );
}
