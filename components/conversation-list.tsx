"use client";

import type { PublicConversation } from "@/lib/contract/shapes";
import { useConversations } from "@/lib/client/queries";
import { useI18n } from "@/lib/client/i18n";
import { ConversationItem } from "./conversation-item";
import { Button } from "./ui/button";
import { InlineAlert } from "./ui/inline-alert";

/** A chat nothing was written in yet (a "New chat" draft, untitled) is not listed: it is saved for the API's sake only. */
function listedConversations(all: readonly PublicConversation[]): PublicConversation[] {
  return all.filter((c) => c.lastSeq > 0 || c.title.trim() !== DRAFT_TITLE);
}

/** lib/chat/titles.ts DEFAULT_TITLE: the name of a chat no one has named yet. */
const DRAFT_TITLE = "New chat";

export function ConversationList({ activeId, onNavigate }: { activeId?: string; onNavigate?: () => void }) {
  const { t } = useI18n();
  const { data, isPending, isError, refetch } = useConversations();
  const listed = data ? listedConversations(data) : undefined;
  const pinned = listed?.filter((c) => c.pinned) ?? [];
  const rest = listed?.filter((c) => !c.pinned) ?? [];

  const section = (label: string, items: PublicConversation[]) => (
    <section aria-label={label}>
      {pinned.length > 0 && (
        <h2 className="px-3 pt-2 pb-1 text-xs font-medium tracking-wide text-muted uppercase">{label}</h2>
      )}
      <ul className="space-y-0.5">
        {items.map((conversation) => (
          <ConversationItem
            key={conversation.id}
            conversation={conversation}
            active={conversation.id === activeId}
            onNavigate={onNavigate}
          />
        ))}
      </ul>
    </section>
  );

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
      {listed && listed.length === 0 && <p className="px-3 py-2 text-sm text-muted">{t("noConversations")}</p>}
      {pinned.length > 0 && section(t("pinnedChats"), pinned)}
      {rest.length > 0 && section(t("recentChats"), rest)}
    </nav>
  );
}
