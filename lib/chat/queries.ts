import { getDb } from "@/lib/db/client";
import type { PublicConversation, PublicMessage, PublicRun } from "@/lib/contract/shapes";
import { toPublicConversation, toPublicMessage, toPublicRun } from "@/lib/contract/message";

// Read paths. Every query is scoped by ownerId; a foreign id reads as missing.

export async function findConversation(ownerId: string, id: string): Promise<PublicConversation | null> {
  const c = await getDb().conversation.findFirst({ where: { id, ownerId, deletedAt: null } });
  return c ? toPublicConversation(c) : null;
}

export async function listConversations(ownerId: string, limit = 100): Promise<PublicConversation[]> {
  const rows = await getDb().conversation.findMany({
    where: { ownerId, deletedAt: null },
    orderBy: [{ updatedAt: "desc" }, { id: "desc" }],
    take: limit,
  });
  return rows.map(toPublicConversation);
}

export async function listMessages(
  ownerId: string,
  conversationId: string,
  opts: { after?: number; limit?: number } = {},
): Promise<PublicMessage[] | null> {
  if (!(await findConversation(ownerId, conversationId))) return null;
  const rows = await getDb().message.findMany({
    where: { conversationId, ownerId, hidden: false, seq: { gt: opts.after ?? 0 } },
    orderBy: { seq: "asc" },
    take: opts.limit ?? 500,
  });
  return rows.map(toPublicMessage);
}

/** Queued and running turns, so a reopened page can show "Thinking…" without waiting for the feed. */
export async function listActiveRuns(ownerId: string, conversationId: string): Promise<PublicRun[]> {
  const rows = await getDb().run.findMany({
    where: { ownerId, conversationId, status: { in: ["queued", "running"] } },
    orderBy: { createdAt: "asc" },
  });
  return rows.map(toPublicRun);
}
