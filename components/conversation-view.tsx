"use client";

import { useMemo } from "react";
import { useQueryClient } from "@tanstack/react-query";
import type { PublicConversation, PublicMessage } from "@/lib/contract/shapes";
import type { DeliveryRequest } from "@/lib/client/api";
import { isRunActive, type RunEntry } from "@/lib/client/cache";
import { buildConversationItems, latestChatRun } from "@/lib/client/conversation-items";
import { sendOutgoing, useOutbox, type OutgoingMessage } from "@/lib/client/outbox";
import { useConversation, useMessages, useOlderMessages, useRuns } from "@/lib/client/queries";
import { useStreams } from "@/lib/client/streams";
import { useI18n } from "@/lib/client/i18n";
import { ConversationFooter } from "./conversation-footer";
import { ConversationItems } from "./conversation-log";
import { HistoryHead, RunEndedNote } from "./conversation-notes";
import { useConversationScroll } from "./use-conversation-scroll";

/** The newest chat turn, when it ended without a reply (failed or cancelled) and nothing is on its way. */
function endedWithoutReply(
  runs: readonly RunEntry[],
  messages: readonly PublicMessage[],
  outgoing: readonly OutgoingMessage[],
): RunEntry | null {
  const busy = runs.some((run) => isRunActive(run.status)) || outgoing.some((m) => m.status === "sending");
  const last = latestChatRun(runs);
  if (!last || busy || (last.status !== "failed" && last.status !== "cancelled")) return null;
  return messages.some((m) => m.kind === "assistant" && m.runId === last.id) ? null : last;
}

export function ConversationView({
  conversationId,
  initialConversation,
}: {
  conversationId: string;
  initialConversation: PublicConversation;
}) {
  const { t } = useI18n();
  const qc = useQueryClient();
  const conversation = useConversation(conversationId, initialConversation);
  const messagesQuery = useMessages(conversationId);
  const older = useOlderMessages(conversationId);
  const runsQuery = useRuns(conversationId);
  const allStreams = useStreams();
  const outbox = useOutbox();

  const messages = messagesQuery.data;
  const streams = useMemo(
    () => Object.values(allStreams).filter((s) => s.conversationId === conversationId),
    [allStreams, conversationId],
  );
  const outgoing = useMemo(() => outbox.filter((m) => m.conversationId === conversationId), [outbox, conversationId]);
  const items = useMemo(() => buildConversationItems(messages ?? [], streams, outgoing), [messages, streams, outgoing]);
  const runs = useMemo(() => Object.values(runsQuery.data ?? {}), [runsQuery.data]);
  const thinking = runs.some((run) => isRunActive(run.status)) || outgoing.some((m) => m.status === "sending");
  const ended = endedWithoutReply(runs, messages ?? [], outgoing);

  const contentSize = items.length + streams.reduce((n, s) => n + s.text.length, 0);
  const { scrollRef, logRef, onScroll, stickToBottomRef, loadOlder, olderFailed } = useConversationScroll({
    messages,
    older,
    contentSize,
    thinking,
  });

  function onSend(content: string, delivery?: DeliveryRequest, workWith?: string) {
    stickToBottomRef.current = true;
    sendOutgoing(qc, conversationId, content, delivery, workWith);
  }

  return (
    <div className="flex min-h-0 flex-1 flex-col">
      <div
        ref={scrollRef}
        onScroll={onScroll}
        className="min-h-0 flex-1 overflow-y-auto overscroll-contain [overflow-anchor:none]"
      >
        <div
          ref={logRef}
          role="log"
          aria-label={t("chatHistory")}
          aria-busy={messagesQuery.isPending || undefined}
          className="mx-auto flex w-full max-w-3xl flex-col gap-5 px-4 py-6 sm:px-6"
        >
          <HistoryHead
            query={messagesQuery}
            showSkeleton={outgoing.length === 0}
            older={{
              shown: older.hasOlder || olderFailed,
              loading: older.loading,
              failed: olderFailed,
              load: () => void loadOlder(),
            }}
          />
          {messages && items.length === 0 && (
            <p className="py-16 text-center text-sm text-muted">{t("emptyConversation")}</p>
          )}
          <ConversationItems items={items} messages={messages ?? []} />
          {ended && <RunEndedNote run={ended} />}
        </div>
      </div>
      <ConversationFooter thinking={thinking} gone={conversation.data === null} onSend={onSend} />
    </div>
  );
}
