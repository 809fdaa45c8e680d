"use client";

import type { ReactNode } from "react";
import { useI18n } from "@/lib/client/i18n";
import { ConversationList } from "./conversation-list";
import { HeraldMark } from "./icons";
import { NewChatButton } from "./new-chat-button";

export function Sidebar({
  activeId,
  onNavigate,
  closeButton,
}: {
  activeId?: string;
  onNavigate?: () => void;
  closeButton?: ReactNode;
}) {
  const { t } = useI18n();
  return (
    <div className="flex h-full min-h-0 flex-col">
      <div className="flex h-14 shrink-0 items-center gap-2.5 px-4">
        <HeraldMark />
        <span className="flex-1 text-base font-semibold tracking-tight">{t("appName")}</span>
        {closeButton}
      </div>
      <div className="shrink-0 px-3 pb-3">
        <NewChatButton variant="full" onCreated={onNavigate} />
      </div>
      <ConversationList activeId={activeId} onNavigate={onNavigate} />
    </div>
  );
}
