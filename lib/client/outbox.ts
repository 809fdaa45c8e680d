// Messages the user sent that the server hasn't confirmed yet. They render as
// optimistic user bubbles until the stored message with the same
// clientMessageId is in the history, whichever way it arrives first. An unsent
// one stays where it was written (after `afterSeq`), not below what arrives
// later, and a send that failed because the network or the server was gone is
// sent again once by itself when the feed is back (retryAfterReconnect).

import type { QueryClient } from "@tanstack/react-query";
import type { PublicMessage } from "@/lib/contract/shapes";
import { ResponseError, newClientId, sendMessage, type DeliveryRequest } from "./api";
import { mergeRun, queryKeys, touchConversation, upsertMessages } from "./cache";
import { createStore } from "./store";
import { getStreams } from "./streams";

export interface OutgoingMessage {
  clientMessageId: string;
  conversationId: string;
  content: string;
  /** The composer's delivery picker; resent unchanged on retry. */
  delivery?: DeliveryRequest;
  /** The composer's "Work with" pick (an opaque id); resent unchanged on retry. */
  workWith?: string;
  status: "sending" | "failed";
  error: ResponseError | null;
  /** ISO time of the (first) send, for display before the server's time is known. */
  createdAt: string;
  /** The newest stored message of the conversation this tab knew when it was sent: the bubble shows right after it. */
  afterSeq: number;
  /** Replies that were being streamed in when it was sent: already on screen above it, they stay above once stored. */
  afterRuns: string[];
  /** Sent again by itself after a reconnect already: it is not retried by itself twice. */
  autoRetried?: boolean;
}

type Snapshot = readonly OutgoingMessage[];

const outbox = createStore<Snapshot>(Object.freeze([]) as Snapshot);

function patch(clientMessageId: string, update: Partial<OutgoingMessage> | null): void {
  outbox.update((snapshot) => {
    if (!snapshot.some((m) => m.clientMessageId === clientMessageId)) return snapshot;
    return update === null
      ? snapshot.filter((m) => m.clientMessageId !== clientMessageId)
      : snapshot.map((m) => (m.clientMessageId === clientMessageId ? { ...m, ...update } : m));
  });
}

async function deliver(qc: QueryClient, entry: OutgoingMessage): Promise<void> {
  try {
    const { message, run } = await sendMessage(entry.conversationId, {
      content: entry.content,
      clientMessageId: entry.clientMessageId,
      ...(entry.delivery ? { delivery: entry.delivery } : {}),
      ...(entry.workWith ? { workWith: entry.workWith } : {}),
    });
    // Same tick: the stored copy replaces the optimistic one without a gap.
    upsertMessages(qc, entry.conversationId, [message]);
    if (run) mergeRun(qc, run);
    touchConversation(qc, entry.conversationId, message.createdAt);
    patch(entry.clientMessageId, null);
  } catch (cause) {
    const error =
      cause instanceof ResponseError
        ? cause
        : new ResponseError(0, "network", cause instanceof Error ? cause.message : String(cause));
    patch(entry.clientMessageId, { status: "failed", error });
  }
}

export function sendOutgoing(
  qc: QueryClient,
  conversationId: string,
  content: string,
  delivery?: DeliveryRequest,
  workWith?: string,
): void {
  const entry: OutgoingMessage = {
    clientMessageId: newClientId(),
    conversationId,
    content,
    delivery,
    ...(workWith ? { workWith } : {}),
    status: "sending",
    error: null,
    createdAt: new Date().toISOString(),
    afterSeq: qc.getQueryData<PublicMessage[]>(queryKeys.messages(conversationId))?.at(-1)?.seq ?? 0,
    afterRuns: Object.values(getStreams())
      .filter((s) => s.conversationId === conversationId && s.text)
      .map((s) => s.runId),
  };
  outbox.update((snapshot) => [...snapshot, entry]);
  void deliver(qc, entry);
}

/** Re-sends with the same clientMessageId, so a send that did reach the server isn't stored twice. */
export function retryOutgoing(qc: QueryClient, clientMessageId: string): void {
  const entry = outbox.get().find((m) => m.clientMessageId === clientMessageId);
  if (!entry || entry.status === "sending") return;
  patch(clientMessageId, { status: "sending", error: null });
  void deliver(qc, { ...entry, status: "sending", error: null });
}

/** A failure that says nothing about the message itself: offline, a dropped connection, a server restarting. */
const transient = (error: ResponseError | null) => error !== null && (error.status === 0 || error.status >= 500);

/** Whether retryAfterReconnect will send it by itself (the bubble says so). */
export function retriesOnReconnect(entry: OutgoingMessage): boolean {
  return entry.status === "failed" && !entry.autoRetried && transient(entry.error);
}

/**
 * The feed came back after an outage: every send that failed meanwhile for a
 * transient reason goes again, once, oldest first and one after the other (so
 * they are stored in the order they were written). The same clientMessageId
 * makes it idempotent: a send that did reach the server before the connection
 * broke is answered with the stored message, not stored twice.
 */
export async function retryAfterReconnect(qc: QueryClient): Promise<void> {
  const due = outbox.get().filter(retriesOnReconnect);
  for (const entry of due) {
    const current = outbox.get().find((m) => m.clientMessageId === entry.clientMessageId);
    if (!current || current.status !== "failed") continue;
    patch(entry.clientMessageId, { status: "sending", error: null, autoRetried: true });
    await deliver(qc, { ...current, status: "sending", error: null, autoRetried: true });
  }
}

/** The stored message is known (e.g. from the feed): the optimistic copy and any error about it are moot. */
export function confirmOutgoing(clientMessageId: string): void {
  patch(clientMessageId, null);
}

export function discardOutgoing(clientMessageId: string): void {
  patch(clientMessageId, null);
}

/** Every conversation's unconfirmed sends, oldest first. */
export function getOutbox(): Snapshot {
  return outbox.get();
}

export function useOutbox(): Snapshot {
  return outbox.useStore();
}
