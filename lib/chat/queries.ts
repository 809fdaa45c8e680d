import { getDb } from "@/lib/db/client";
import type { PublicConversation, PublicMessage, PublicRun } from "@/lib/contract/shapes";
import { toPublicConversation, toPublicMessage, toPublicRun } from "@/lib/contract/message";

// Read paths. Every query is scoped by ownerId; a foreign id reads as missing.

export async function findConversation(ownerId: string, id: string): Promise<PublicConversation | null> {
  const c = await getDb().conversation.findFirst({ where: { id, ownerId, deletedAt: null } });
  return c ? toPublicConversation(c) : null;
}

/** Pinned first, then newest activity; pins never push the rest out of the page (they are capped). */
export async function listConversations(ownerId: string, limit = 100): Promise<PublicConversation[]> {
  const db = getDb();
  const [pinned, rest] = await Promise.all([
    db.conversation.findMany({
      where: { ownerId, deletedAt: null, pinnedAt: { not: null } },
      orderBy: [{ updatedAt: "desc" }, { id: "desc" }],
    }),
    db.conversation.findMany({
      where: { ownerId, deletedAt: null, pinnedAt: null },
      orderBy: [{ updatedAt: "desc" }, { id: "desc" }],
      take: limit,
    }),
  ]);
  return [...pinned, ...rest].map(toPublicConversation);
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

/**
 * The `limit` visible messages just before seq `before`, ascending, and whether
 * older ones exist. Read newest first through (conversationId, seq), so the
 * cost is the page, not the conversation's length.
 */
export async function listMessagesBefore(
  ownerId: string,
  conversationId: string,
  before: number,
  limit = 50,
): Promise<{ messages: PublicMessage[]; hasOlder: boolean } | null> {
  if (!(await findConversation(ownerId, conversationId))) return null;
  const rows = await getDb().message.findMany({
    where: { conversationId, ownerId, hidden: false, seq: { lt: before } },
    orderBy: { seq: "desc" },
    take: limit + 1,
  });
  const hasOlder = rows.length > limit;
  return { messages: rows.slice(0, limit).reverse().map(toPublicMessage), hasOlder };
}

/** Queued and running turns, so a reopened page can show "Thinking…" without waiting for the feed. */
export async function listActiveRuns(ownerId: string, conversationId: string): Promise<PublicRun[]> {
  const rows = await getDb().run.findMany({
    where: { ownerId, conversationId, status: { in: ["queued", "running"] } },
    orderBy: { createdAt: "asc" },
  });
  return rows.map(toPublicRun);
}
