// The account's event feed (docs/api.md#event-feed): one EventSource per tab, shared by
// every component that needs live data, patching React Query caches.

import { useEffect } from "react";
import { useQueryClient, type QueryClient } from "@tanstack/react-query";
import type { DurableFeedType, FeedPayload } from "@/lib/contract/shapes";
import {
  isRunActive,
  mergeRun,
  noteConversationMessage,
  patchTask,
  queryKeys,
  refreshAll,
  rememberFeedMessage,
  removeConversation,
  touchConversation,
  upsertConversation,
  upsertMessages,
} from "./cache";
import { confirmOutgoing, retryAfterReconnect } from "./outbox";
import { applyDelta, endStream, finishStream } from "./streams";
import { notifyNotice, trackVisibility } from "./browser-notify";
import { feedLost, feedOpened, feedStopped } from "./feed-connection";
import { noteNotice } from "./away";

const DURABLE_TYPES: readonly DurableFeedType[] = [
  "message.created",
  "run.updated",
  "conversation.updated",
  "task.updated",
  "notice.created",
  "reset",
];

const MIN_RETRY_MS = 1000;
const MAX_RETRY_MS = 30_000;
// Navigating between pages remounts the shell; don't drop the connection for that.
const RELEASE_GRACE_MS = 5000;
// A connection that sat in a background tab (or through a laptop sleep) may be
// dead without the browser noticing; past this, coming back reconnects from
// our cursor instead of trusting it.
const HIDDEN_RECONNECT_MS = 30_000;

interface FeedState {
  qc: QueryClient | null;
  source: EventSource | null;
  users: number;
  /** Highest durable seq applied; null until the first durable event. */
  lastEventId: number | null;
  retryDelay: number;
  retryTimer: ReturnType<typeof setTimeout> | null;
  releaseTimer: ReturnType<typeof setTimeout> | null;
  detach: (() => void) | null;
  /** Client clock when the tab was last hidden; null while visible. */
  hiddenAt: number | null;
}

const state: FeedState = {
  qc: null,
  source: null,
  users: 0,
  lastEventId: null,
  retryDelay: MIN_RETRY_MS,
  retryTimer: null,
  releaseTimer: null,
  detach: null,
  hiddenAt: null,
};

/** An event's data as the server sent it; fields are still checked, since a frame may be cut or foreign. */
type Received<T extends DurableFeedType> = Partial<FeedPayload<T>> | null;

function parse<T>(event: MessageEvent): T | null {
  try {
    return JSON.parse(event.data as string) as T;
  } catch {
    return null;
  }
}

function onMessageCreated(qc: QueryClient, data: Received<"message.created">): void {
  const message = data?.message;
  if (!message) return;
  rememberFeedMessage(message);
  upsertMessages(qc, message.conversationId, [message]);
  touchConversation(qc, message.conversationId, message.createdAt);
  noteConversationMessage(qc, message);
  if (message.kind === "assistant" && message.runId) finishStream(message.runId);
  if (message.kind === "user" && message.clientMessageId) confirmOutgoing(message.clientMessageId);
  // The notice's message carries what a system notification needs (title, sentence); its notice.created twin does not.
  if (message.kind === "notice") {
    noteNotice(qc, message);
    const meta = message.meta as { noticeId?: unknown; title?: unknown } | null | undefined;
    if (typeof meta?.noticeId === "string" && typeof meta.title === "string") {
      void notifyNotice({
        noticeId: meta.noticeId,
        conversationId: message.conversationId,
        title: meta.title,
        text: message.content,
      });
    }
  }
}

function onRunUpdated(qc: QueryClient, data: Received<"run.updated">): void {
  const run = data?.run;
  if (!run) return;
  mergeRun(qc, run);
  if (!isRunActive(run.status)) endStream(run.id, run.status === "succeeded");
}

function onConversationUpdated(qc: QueryClient, data: Received<"conversation.updated">): void {
  const conversation = data?.conversation;
  if (!conversation) return;
  if (data.deleted) {
    removeConversation(qc, conversation.id);
  } else {
    if (qc.getQueryData(queryKeys.conversations) === undefined) return;
    upsertConversation(qc, conversation);
  }
}

/** Hidden tabs mark details stale instead of fetching; they refetch on return. */
function refetchTypeNow(): "active" | "none" {
  return document.visibilityState === "visible" ? "active" : "none";
}

function onTaskUpdated(qc: QueryClient, data: Received<"task.updated">): void {
  const task = data?.task;
  if (!task || typeof task.id !== "string") return;
  // The detail was older: its publications, notices or progress may have moved on too.
  if (patchTask(qc, task)) {
    void qc.invalidateQueries(
      { queryKey: queryKeys.taskDetail(task.id), refetchType: refetchTypeNow() },
      { cancelRefetch: false },
    );
  }
}

function onNoticeCreated(qc: QueryClient, data: Received<"notice.created">): void {
  const taskId = data?.notice?.taskId;
  if (typeof taskId !== "string") return;
  void qc.invalidateQueries(
    { queryKey: queryKeys.taskDetail(taskId), refetchType: refetchTypeNow() },
    { cancelRefetch: false },
  );
}

function handleDurable(type: DurableFeedType, event: MessageEvent): void {
  const qc = state.qc;
  if (!qc) return;
  const id = event.lastEventId ? Number(event.lastEventId) : NaN;
  const hasId = Number.isSafeInteger(id);

  if (type === "reset") {
    // Our cursor is older than the server keeps: everything may be stale.
    if (hasId) state.lastEventId = id;
    void refreshAll(qc);
    return;
  }

  // Replays after a reconnect can overlap what we already applied.
  if (hasId && state.lastEventId !== null && id <= state.lastEventId) return;
  if (hasId) state.lastEventId = id;

  switch (type) {
    case "message.created":
      onMessageCreated(qc, parse(event));
      break;
    case "run.updated":
      onRunUpdated(qc, parse(event));
      break;
    case "conversation.updated":
      onConversationUpdated(qc, parse(event));
      break;
    case "task.updated":
      onTaskUpdated(qc, parse(event));
      break;
    case "notice.created":
      onNoticeCreated(qc, parse(event));
      break;
  }
}

function handleDelta(event: MessageEvent): void {
  const delta = parse<FeedPayload<"run.delta">>(event);
  if (delta && typeof delta.runId === "string") applyDelta(delta);
}

function clearRetry(): void {
  if (state.retryTimer !== null) clearTimeout(state.retryTimer);
  state.retryTimer = null;
}

function close(): void {
  clearRetry();
  state.source?.close();
  state.source = null;
}

function connect(): void {
  close();
  const url = state.lastEventId === null ? "/api/events" : `/api/events?after=${state.lastEventId}`;
  const source = new EventSource(url);
  state.source = source;

  source.addEventListener("open", () => {
    if (source !== state.source) return;
    state.retryDelay = MIN_RETRY_MS;
    // Without a cursor the server can't replay what happened between our
    // snapshots and this connection; refetch them instead. After an outage,
    // refetch too: the replay covers the log, not a list that polled and failed meanwhile.
    const wasDown = feedOpened();
    if ((state.lastEventId === null || wasDown) && state.qc) void refreshAll(state.qc);
    // Sends that failed while the connection was gone go again, once (lib/client/outbox.ts).
    if (wasDown && state.qc) void retryAfterReconnect(state.qc);
  });

  source.addEventListener("error", () => {
    if (source !== state.source) return;
    // Either way what the page shows may now be stale: say so until it opens again.
    feedLost();
    // CONNECTING: the browser is already retrying (with Last-Event-ID).
    // CLOSED: it gave up (HTTP error, bad content type); we take over.
    if (source.readyState !== EventSource.CLOSED) return;
    scheduleReconnect();
  });

  for (const type of DURABLE_TYPES) {
    source.addEventListener(type, (event) => {
      if (source === state.source) handleDurable(type, event as MessageEvent);
    });
  }
  source.addEventListener("run.delta", (event) => {
    if (source === state.source) handleDelta(event as MessageEvent);
  });
}

function scheduleReconnect(): void {
  clearRetry();
  // A closed feed often means the session ended; any API call will find out
  // (and send us to sign-in), and it refreshes the list meanwhile.
  void state.qc?.invalidateQueries({ queryKey: queryKeys.conversations });
  if (document.visibilityState !== "visible") return; // resumed by onVisible
  const jitter = Math.random() * 0.3 * state.retryDelay;
  const delay = state.retryDelay + jitter;
  state.retryDelay = Math.min(state.retryDelay * 2, MAX_RETRY_MS);
  state.retryTimer = setTimeout(() => {
    state.retryTimer = null;
    if (state.users > 0) connect();
  }, delay);
}

function isDown(): boolean {
  return state.source === null || state.source.readyState === EventSource.CLOSED;
}

function onVisible(): void {
  if (document.visibilityState !== "visible") {
    state.hiddenAt ??= Date.now();
    return;
  }
  const hiddenFor = state.hiddenAt === null ? 0 : Date.now() - state.hiddenAt;
  state.hiddenAt = null;
  if (state.users > 0 && (isDown() || hiddenFor >= HIDDEN_RECONNECT_MS)) {
    state.retryDelay = MIN_RETRY_MS;
    connect();
  }
}

/** Back from the back/forward cache or a frozen (discarded-then-restored) state: connections did not survive. */
function onResume(event: Event): void {
  if (event.type === "pageshow" && !(event as PageTransitionEvent).persisted) return;
  if (state.users > 0) {
    state.retryDelay = MIN_RETRY_MS;
    connect();
  }
}

function onOnline(): void {
  if (state.users > 0 && isDown()) {
    state.retryDelay = MIN_RETRY_MS;
    connect();
  }
}

function attach(): () => void {
  document.addEventListener("visibilitychange", onVisible);
  document.addEventListener("resume", onResume);
  window.addEventListener("pageshow", onResume);
  window.addEventListener("online", onOnline);
  if (document.visibilityState !== "visible") state.hiddenAt = Date.now();
  return () => {
    document.removeEventListener("visibilitychange", onVisible);
    document.removeEventListener("resume", onResume);
    window.removeEventListener("pageshow", onResume);
    window.removeEventListener("online", onOnline);
  };
}

/** Starts (or joins) the tab's feed; returns the release function. */
export function acquireFeed(qc: QueryClient): () => void {
  if (state.releaseTimer !== null) {
    clearTimeout(state.releaseTimer);
    state.releaseTimer = null;
  }
  if (state.qc !== qc) {
    // A different cache (new QueryClient) must not inherit the old cursor's assumptions.
    close();
    state.lastEventId = null;
    state.qc = qc;
  }
  state.users += 1;
  if (!state.detach) state.detach = attach();
  trackVisibility();
  if (isDown() && state.retryTimer === null) connect();

  let released = false;
  return () => {
    if (released) return;
    released = true;
    state.users -= 1;
    if (state.users > 0) return;
    state.releaseTimer = setTimeout(() => {
      state.releaseTimer = null;
      if (state.users > 0) return;
      stopFeed();
    }, RELEASE_GRACE_MS);
  };
}

/** Closes the feed now (sign-out): nothing more may arrive for this account. */
export function stopFeed(): void {
  close();
  feedStopped();
  state.detach?.();
  state.detach = null;
  if (state.releaseTimer !== null) clearTimeout(state.releaseTimer);
  state.releaseTimer = null;
}

export function useFeed(): void {
  const qc = useQueryClient();
  useEffect(() => acquireFeed(qc), [qc]);
}
