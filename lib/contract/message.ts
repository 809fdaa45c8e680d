import type { Conversation, Message, Run } from "@/lib/db/generated/client.ts";
import {
  messageMetaSchemas,
  type MessageKind,
  type MessageMeta,
  type PublicConversation,
  type PublicMessage,
  type PublicRun,
  type RunStatus,
} from "@/lib/contract/shapes";

// Whitelist projections: a field reaches a client only if it is copied here.

export function toPublicConversation(c: Conversation): PublicConversation {
  return {
    id: c.id,
    title: c.title,
    createdAt: c.createdAt.toISOString(),
    updatedAt: c.updatedAt.toISOString(),
    pinned: c.pinnedAt !== null,
    unread: c.unreadCount,
    lastReadSeq: c.lastReadSeq,
    lastSeq: c.messageSeq,
  };
}

/**
 * A stored message's meta read back through its kind's schema: only the fields
 * that kind's contract names, or null when nothing fits (written by an older
 * version, or none at all).
 */
export function messageMetaOf<K extends MessageKind>(kind: K, meta: unknown): MessageMeta<K> {
  if (meta === null || meta === undefined) return null;
  const parsed = messageMetaSchemas[kind].safeParse(meta);
  return parsed.success ? (parsed.data as MessageMeta<K>) : null;
}

export function toPublicMessage(m: Message): PublicMessage {
  const kind = m.kind as MessageKind;
  // One cast: TypeScript cannot tie a runtime kind to its meta type, messageMetaOf does.
  return {
    id: m.id,
    conversationId: m.conversationId,
    seq: m.seq,
    kind,
    content: m.content,
    taskId: m.taskId,
    runId: m.runId,
    publicationId: m.publicationId,
    meta: messageMetaOf(kind, m.meta),
    clientMessageId: m.clientMessageId,
    createdAt: m.createdAt.toISOString(),
  } as PublicMessage;
}

export function toPublicRun(r: Run): PublicRun {
  return {
    id: r.id,
    conversationId: r.conversationId,
    kind: r.kind as PublicRun["kind"],
    status: r.status as RunStatus,
    error: r.error,
    createdAt: r.createdAt.toISOString(),
    startedAt: r.startedAt?.toISOString() ?? null,
    finishedAt: r.finishedAt?.toISOString() ?? null,
  };
}
