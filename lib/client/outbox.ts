// Messages the user sent that the server hasn't confirmed yet. They render as
// optimistic user bubbles until the stored message with the same
// clientMessageId is in the history, whichever way it arrives first.

import type { QueryClient } from "@tanstack/react-query";
import { ApiError, newClientId, sendMessage, type DeliveryRequest } from "./api";
import { mergeRun, touchConversation, upsertMessages } from "./cache";
import { createStore } from "./store";

export interface OutgoingMessage {
  clientMessageId: string;
  conversationId: string;
  content: string;
  /** The composer's delivery picker; resent unchanged on retry. */
  delivery?: DeliveryRequest;
  /** The composer's "Work with" pick (an opaque id); resent unchanged on retry. */
  workWith?: string;
  status: "sending" | "failed";
  error: ApiError | null;
  /** ISO time of the (first) send, for display before the server's time is known. */
  createdAt: string;
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
      cause instanceof ApiError
        ? cause
        : new ApiError(0, "network", cause instanceof Error ? cause.message : String(cause));
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
