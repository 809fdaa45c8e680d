import { getDb } from "@/lib/db/client";
import type { Conversation } from "@/lib/db/generated/client.ts";
import { emitEvent } from "@/lib/events/emit";
import { notFound } from "@/lib/errors/api-error";
import { toPublicConversation } from "@/lib/contract/message";
import type { PublicConversation } from "@/lib/contract/shapes";

/** Counting stops here: a badge says "99+" long before, and the count costs one index range read. */
const UNREAD_COUNT_CAP = 1000;

/**
 * Moves the account's read mark of a conversation forward to `seq` (never back,
 * never past the newest message) and recounts what is still unread after it.
 * The row lock is the one appendMessage takes, so a message committing meanwhile
 * is either counted here or after. Only a mark that moved is announced on the
 * feed: the account's other tabs and devices clear their dots from it.
 */
export async function markRead(ownerId: string, id: string, seq: number): Promise<PublicConversation> {
  return getDb().$transaction(async (tx) => {
    const [row] = await tx.$queryRaw<Conversation[]>`
      SELECT * FROM "conversation" WHERE id = ${id} AND "ownerId" = ${ownerId} AND "deletedAt" IS NULL FOR UPDATE`;
    if (!row) throw notFound("Conversation");
    const target = Math.min(seq, row.messageSeq);
    if (target <= row.lastReadSeq) return toPublicConversation(row);
    const [{ n }] = await tx.$queryRaw<{ n: number }[]>`
      SELECT count(*)::int AS n FROM (
        SELECT 1 FROM "message"
        WHERE "conversationId" = ${id} AND seq > ${target} AND NOT hidden AND kind NOT IN ('user', 'progress')
        LIMIT ${UNREAD_COUNT_CAP}
      ) unread`;
    // updatedAt stays: reading is not activity, and the list is ordered by it.
    const updated = await tx.conversation.update({ where: { id }, data: { lastReadSeq: target, unreadCount: n } });
    const conversation = toPublicConversation(updated);
    await emitEvent(tx, ownerId, { type: "conversation.updated", data: { conversation } }, { conversationId: id });
    return conversation;
  });
}
