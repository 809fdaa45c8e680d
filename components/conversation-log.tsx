"use client";

import { useQueryClient } from "@tanstack/react-query";
import type { PublicMessage } from "@/lib/contract/shapes";
import type { ConversationItem } from "@/lib/client/conversation-items";
import { errorWords } from "@/lib/client/error-words";
import { discardOutgoing, retriesOnReconnect, retryOutgoing, type OutgoingMessage } from "@/lib/client/outbox";
import { useI18n } from "@/lib/client/i18n";
import { AssistantBubble, MessageItem, ProgressGroup, UserBubble } from "./message-item";
import { ReportVersionsProvider } from "./report-versions";
import { Button } from "./ui/button";
import { InlineAlert } from "./ui/inline-alert";

/** A send not stored yet: greyed while it goes, with its error and Try again / Discard once it failed. */
function OutgoingBubble({ entry }: { entry: OutgoingMessage }) {
  const { t } = useI18n();
  const qc = useQueryClient();
  const failed = entry.status === "failed";
  return (
    <UserBubble
      message={{ content: entry.content, createdAt: entry.createdAt }}
      pending={entry.status === "sending"}
      failed={failed}
    >
      {failed && (
        <InlineAlert
          stacked
          className="max-w-[85%] sm:max-w-[75%]"
          actions={
            <>
              <Button variant="danger" size="sm" onClick={() => retryOutgoing(qc, entry.clientMessageId)}>
                {t("tryAgain")}
              </Button>
              <Button variant="danger-outline" size="sm" onClick={() => discardOutgoing(entry.clientMessageId)}>
                {t("discard")}
              </Button>
            </>
          }
        >
          <span>
            {t("sendFailed", { message: entry.error ? errorWords(t, entry.error) : "?" })}
            {retriesOnReconnect(entry) && <span className="block text-xs opacity-80">{t("sendRetryOnReconnect")}</span>}
          </span>
        </InlineAlert>
      )}
    </UserBubble>
  );
}

function Item({ item }: { item: ConversationItem }) {
  switch (item.type) {
    case "message":
      return <MessageItem message={item.message} />;
    case "progress":
      return <ProgressGroup messages={item.messages} active={item.active} />;
    case "stream":
      return (
        <AssistantBubble
          streaming
          truncatedStart={item.stream.start > 0}
          message={{ content: item.stream.text, createdAt: "", runId: item.stream.runId }}
        />
      );
    case "outgoing":
      return <OutgoingBubble entry={item.entry} />;
  }
}

/** The conversation's entries in order; report versions are folded against the stored messages. */
export function ConversationItems({
  items,
  messages,
}: {
  items: readonly ConversationItem[];
  messages: readonly PublicMessage[];
}) {
  return (
    <ReportVersionsProvider messages={messages}>
      {items.map((item) => (
        <Item key={item.key} item={item} />
      ))}
    </ReportVersionsProvider>
  );
}
