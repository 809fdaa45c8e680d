import type { Conversation, Message, Run } from "@/lib/db/generated/client.ts";
import type { MessageKind, PublicConversation, PublicMessage, PublicRun, RunStatus } from "@/lib/api/shapes";

// Whitelist projections: a field reaches a client only if it is copied here.

export function toPublicConversation(c: Conversation): PublicConversation {
  return { id: c.id, title: c.title, createdAt: c.createdAt.toISOString(), updatedAt: c.updatedAt.toISOString() };
}

export function toPublicMessage(m: Message): PublicMessage {
  return {
    id: m.id,
    conversationId: m.conversationId,
    seq: m.seq,
    kind: m.kind as MessageKind,
    content: m.content,
    taskId: m.taskId,
    runId: m.runId,
    publicationId: m.publicationId,
    meta: (m.meta as Record<string, unknown> | null) ?? null,
    clientMessageId: m.clientMessageId,
    createdAt: m.createdAt.toISOString(),
  };
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
