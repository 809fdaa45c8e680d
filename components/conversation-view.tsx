"use client";

import Link from "next/link";
import { useCallback, useEffect, useLayoutEffect, useMemo, useRef, useState } from "react";
import { useQueryClient } from "@tanstack/react-query";
import type { PublicConversation, PublicMessage } from "@/lib/contract/shapes";
import type { DeliveryRequest } from "@/lib/client/api";
import { errorWords, failureWords } from "@/lib/client/error-words";
import { errorCodeOf } from "@/lib/errors/categories";
import { isRunActive, type RunEntry } from "@/lib/client/cache";
import { discardOutgoing, retryOutgoing, sendOutgoing, useOutbox, type OutgoingMessage } from "@/lib/client/outbox";
import { useConversation, useMessages, useOlderMessages, useRuns } from "@/lib/client/queries";
import { useStreams, type StreamingText } from "@/lib/client/streams";
import { useI18n } from "@/lib/client/i18n";
import type { MessageKey } from "@/lib/i18n/dictionaries";
import { Composer } from "./composer";
import { AssistantBubble, MessageItem, ProgressGroup, UserBubble } from "./message-item";
import { ReportVersionsProvider } from "./report-versions";
import { Button } from "./ui/button";
import { InlineAlert } from "./ui/inline-alert";

type Item =
  | { type: "message"; key: string; message: PublicMessage }
  | { type: "progress"; key: string; messages: PublicMessage[]; active: boolean }
  | { type: "stream"; key: string; stream: StreamingText }
  | { type: "outgoing"; key: string; entry: OutgoingMessage };

/**
 * Stored messages in seq order, with each task's progress folded into one
 * entry at the position of its latest update, then live previews of replies,
 * then the user's not-yet-confirmed sends.
 */
function buildItems(
  messages: readonly PublicMessage[],
  streams: readonly StreamingText[],
  outgoing: readonly OutgoingMessage[],
): Item[] {
  const groups = new Map<string, PublicMessage[]>();
  const endedTasks = new Set<string>();
  for (const m of messages) {
    if (m.kind === "progress") {
      const key = m.taskId ?? m.id;
      const list = groups.get(key);
      if (list) list.push(m);
      else groups.set(key, [m]);
    } else if (m.kind === "terminal" && m.taskId) {
      endedTasks.add(m.taskId);
    }
  }

  const items: Item[] = [];
  for (const m of messages) {
    if (m.kind !== "progress") {
      items.push({ type: "message", key: m.id, message: m });
      continue;
    }
    const groupKey = m.taskId ?? m.id;
    const group = groups.get(groupKey) ?? [m];
    if (group[group.length - 1].id !== m.id) continue;
    const active = !m.taskId || !endedTasks.has(m.taskId);
    // Keyed by task so its open/closed state survives new updates moving it down.
    items.push({ type: "progress", key: `progress:${groupKey}`, messages: group, active: m.taskId ? active : false });
  }

  const storedRuns = new Set(messages.filter((m) => m.kind === "assistant" && m.runId).map((m) => m.runId));
  for (const stream of streams) {
    if (!storedRuns.has(stream.runId) && stream.text) items.push({ type: "stream", key: `stream:${stream.runId}`, stream });
  }

  const storedClientIds = new Set(messages.map((m) => m.clientMessageId).filter(Boolean));
  for (const entry of outgoing) {
    if (!storedClientIds.has(entry.clientMessageId)) {
      items.push({ type: "outgoing", key: `out:${entry.clientMessageId}`, entry });
    }
  }
  return items;
}

function errorText(t: (key: MessageKey, vars?: Record<string, string | number>) => string, entry: OutgoingMessage) {
  const error = entry.error;
  return t("sendFailed", { message: error ? errorWords(t, error) : "?" });
}

function latestChatRun(runs: readonly RunEntry[]): RunEntry | null {
  let latest: RunEntry | null = null;
  for (const run of runs) {
    if (run.kind !== "chat") continue;
    if (!latest || Date.parse(run.createdAt) > Date.parse(latest.createdAt)) latest = run;
  }
  return latest;
}

const NEAR_BOTTOM_PX = 96;
/** Within this of the top, the page before the window starts loading. */
const NEAR_TOP_PX = 600;
/** How far back a link to a body (#pub-…) may page to find it: 40 pages of 50. */
const MAX_HASH_PAGES = 40;

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
  const [olderFailed, setOlderFailed] = useState(false);
  const runsQuery = useRuns(conversationId);
  const allStreams = useStreams();
  const outbox = useOutbox();

  const messages = messagesQuery.data;
  const streams = useMemo(
    () => Object.values(allStreams).filter((s) => s.conversationId === conversationId),
    [allStreams, conversationId],
  );
  const outgoing = useMemo(() => outbox.filter((m) => m.conversationId === conversationId), [outbox, conversationId]);
  const items = useMemo(() => buildItems(messages ?? [], streams, outgoing), [messages, streams, outgoing]);

  const runs = useMemo(() => Object.values(runsQuery.data ?? {}), [runsQuery.data]);
  const thinking = runs.some((run) => isRunActive(run.status)) || outgoing.some((m) => m.status === "sending");
  const lastRun = latestChatRun(runs);
  const lastRunFailed =
    lastRun !== null &&
    !thinking &&
    (lastRun.status === "failed" || lastRun.status === "cancelled") &&
    !(messages ?? []).some((m) => m.kind === "assistant" && m.runId === lastRun.id);

  const gone = conversation.data === null;

  // Follow new content only while the reader is at the bottom; never yank them away from what they're reading.
  const scrollRef = useRef<HTMLDivElement>(null);
  const stickToBottom = useRef(true);
  const handledHash = useRef(false);
  const contentSize = items.length + streams.reduce((n, s) => n + s.text.length, 0);

  useLayoutEffect(() => {
    const el = scrollRef.current;
    if (el && stickToBottom.current) el.scrollTop = el.scrollHeight;
  }, [contentSize, thinking]);

  // Content also changes height without changing the item count (a progress
  // group moving down, a stream replaced by its stored message, late-loading
  // times), and the viewport shrinks when the status row or the delivery
  // picker grows: follow those too while the reader is at the bottom.
  const logRef = useRef<HTMLDivElement>(null);
  useEffect(() => {
    const scroller = scrollRef.current;
    const log = logRef.current;
    if (!scroller || !log || typeof ResizeObserver === "undefined") return;
    const observer = new ResizeObserver(() => {
      if (stickToBottom.current) scroller.scrollTop = scroller.scrollHeight;
    });
    observer.observe(scroller);
    observer.observe(log);
    return () => observer.disconnect();
  }, []);

  // Older pages go on top of what the reader is looking at: keep its distance
  // from the bottom, so nothing moves under their eyes (scroll anchoring may
  // already have done it; setting the same absolute position again is harmless).
  const fromBottom = useRef(0);
  const oldestSeq = messages?.[0]?.seq;
  const previousOldest = useRef(oldestSeq);
  useLayoutEffect(() => {
    const el = scrollRef.current;
    const before = previousOldest.current;
    previousOldest.current = oldestSeq;
    if (!el || before === undefined || oldestSeq === undefined || oldestSeq >= before || stickToBottom.current) return;
    el.scrollTop = el.scrollHeight - fromBottom.current;
  }, [oldestSeq]);

  const { loadOlder: fetchOlder, hasOlder } = older;
  const loadingOlder = useRef(false);
  const loadOlder = useCallback(async (): Promise<boolean> => {
    if (loadingOlder.current) return false;
    loadingOlder.current = true;
    setOlderFailed(false);
    try {
      return await fetchOlder();
    } catch {
      setOlderFailed(true);
      return false;
    } finally {
      loadingOlder.current = false;
    }
  }, [fetchOlder]);

  // A window shorter than the screen cannot be scrolled up: fetch the page before it right away.
  useEffect(() => {
    const el = scrollRef.current;
    if (el && messages && hasOlder && !olderFailed && el.scrollHeight <= el.clientHeight + NEAR_BOTTOM_PX) void loadOlder();
  }, [messages, hasOlder, olderFailed, loadOlder]);

  // A link like /c/<id>#pub-<publicationId> should land on that body once history has loaded,
  // paging back for it when it is older than the newest page.
  const hashPages = useRef(0);
  useEffect(() => {
    if (handledHash.current || !messages) return;
    const hash = decodeURIComponent(window.location.hash.slice(1));
    const target = hash ? document.getElementById(hash) : null;
    if (hash && !target && hasOlder && !olderFailed && hashPages.current < MAX_HASH_PAGES) {
      hashPages.current += 1;
      stickToBottom.current = false;
      void loadOlder();
      return;
    }
    handledHash.current = true;
    if (target) {
      stickToBottom.current = false;
      target.scrollIntoView({ block: "start" });
      target.focus({ preventScroll: true });
    }
  }, [messages, hasOlder, olderFailed, loadOlder]);

  function onScroll() {
    const el = scrollRef.current;
    if (!el) return;
    fromBottom.current = el.scrollHeight - el.scrollTop;
    if (el.scrollTop < NEAR_TOP_PX && hasOlder && !olderFailed) void loadOlder();
    stickToBottom.current = el.scrollHeight - el.scrollTop - el.clientHeight < NEAR_BOTTOM_PX;
    // Scroll anchoring keeps what the reader is looking at in place when
    // content above it changes: right while reading history, wrong while
    // following the bottom (a progress group moving below a body would scroll
    // us up by its height and unpin us).
    el.style.overflowAnchor = stickToBottom.current ? "none" : "auto";
  }

  function onSend(content: string, delivery?: DeliveryRequest, workWith?: string) {
    stickToBottom.current = true;
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
          {messagesQuery.isPending && outgoing.length === 0 && (
            <div className="space-y-4" aria-hidden="true">
              <div className="ml-auto h-10 w-2/5 animate-pulse rounded-2xl bg-subtle" />
              <div className="h-16 w-3/5 animate-pulse rounded-2xl bg-subtle" />
            </div>
          )}
          {messagesQuery.isError && !messages && (
            <InlineAlert
              framed={false}
              icon={false}
              actions={
                <Button variant="secondary" size="sm" onClick={() => void messagesQuery.refetch()}>
                  {t("reload")}
                </Button>
              }
            >
              {t("messagesFailed")}
            </InlineAlert>
          )}
          {messages && (hasOlder || olderFailed) && (
            <div className="flex flex-col items-center gap-1">
              <Button variant="ghost" size="sm" onClick={() => void loadOlder()} disabled={older.loading} aria-busy={older.loading || undefined}>
                {older.loading ? t("loadingOlder") : t("loadOlder")}
              </Button>
              {olderFailed && <p className="text-xs text-danger">{t("olderFailed")}</p>}
            </div>
          )}
          {messages && items.length === 0 && (
            <p className="py-16 text-center text-sm text-muted">{t("emptyConversation")}</p>
          )}

          <ReportVersionsProvider messages={messages ?? []}>
            {items.map((item) => {
              switch (item.type) {
                case "message":
                  return <MessageItem key={item.key} message={item.message} />;
                case "progress":
                  return <ProgressGroup key={item.key} messages={item.messages} active={item.active} />;
                case "stream":
                  return (
                    <AssistantBubble
                      key={item.key}
                      streaming
                      truncatedStart={item.stream.start > 0}
                      message={{ content: item.stream.text, createdAt: "", runId: item.stream.runId }}
                    />
                  );
                case "outgoing":
                  return (
                    <UserBubble
                      key={item.key}
                      message={{ content: item.entry.content, createdAt: item.entry.createdAt }}
                      pending={item.entry.status === "sending"}
                      failed={item.entry.status === "failed"}
                    >
                      {item.entry.status === "failed" && (
                        <InlineAlert
                          className="max-w-[85%] sm:max-w-[75%]"
                          actions={
                            <>
                              <Button variant="danger" size="sm" onClick={() => retryOutgoing(qc, item.entry.clientMessageId)}>
                                {t("tryAgain")}
                              </Button>
                              <Button variant="danger-outline" size="sm" onClick={() => discardOutgoing(item.entry.clientMessageId)}>
                                {t("discard")}
                              </Button>
                            </>
                          }
                        >
                          {errorText(t, item.entry)}
                        </InlineAlert>
                      )}
                    </UserBubble>
                  );
              }
            })}
          </ReportVersionsProvider>

          {lastRunFailed && (
            <p className="text-center text-xs text-muted">
              {lastRun.status === "cancelled"
                ? t("runCancelled")
                : t("runFailed", { detail: lastRun.error ? ` (${failureWords(t, { error: lastRun.error.slice(0, 200), errorCode: errorCodeOf(lastRun.error) })})` : "" })}
            </p>
          )}
        </div>
      </div>

      <div className="shrink-0 border-t border-border bg-bg/90 backdrop-blur">
        <div className="mx-auto w-full max-w-3xl px-4 pt-2 pb-[max(0.75rem,env(safe-area-inset-bottom))] sm:px-6">
          <div className="min-h-6 pb-1">
            {thinking && (
              <p role="status" className="flex items-center gap-2 text-xs text-muted">
                <span className="flex gap-1" aria-hidden="true">
                  <span className="size-1.5 animate-bounce rounded-full bg-accent [animation-delay:-0.3s] motion-reduce:animate-none" />
                  <span className="size-1.5 animate-bounce rounded-full bg-accent [animation-delay:-0.15s] motion-reduce:animate-none" />
                  <span className="size-1.5 animate-bounce rounded-full bg-accent motion-reduce:animate-none" />
                </span>
                {t("thinking")}
              </p>
            )}
            {gone && (
              <p className="text-xs text-danger">
                {t("conversationGone")}{" "}
                <Link href="/" className="font-medium underline underline-offset-4">
                  {t("backHome")}
                </Link>
              </p>
            )}
          </div>
          <Composer onSend={onSend} disabled={gone} />
        </div>
      </div>
    </div>
  );
}
