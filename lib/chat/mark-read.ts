import { getDb } from "@/lib/db/client";
import type { Conversation } from "@/lib/db/generated/client.ts";
import { emitEvent } from "@/lib/events/emit";
import { notFound } from "@/lib/errors/api-error";
import { toPublicConversation } from "@/lib/contract/message";
import type { PublicConversation } from "@/lib/contract/shapes";
import { heldUntilDue, momentTaskOf, speaks } from "./unread-sql";

/** Counting stops here: a badge says "99+" long before, and the count costs one index range read. */
const UNREAD_COUNT_CAP = 1000;

/**
 * Moves the account's read mark of a conversation forward to `seq` (never back,
 * never past the newest message) and recounts the moments still unread after it.
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
    // Moments, not rows (lib/chat/unread-sql.ts): a task's unread messages are one.
    const [{ n }] = await tx.$queryRaw<{ n: number }[]>`
      SELECT count(DISTINCT coalesce(moment_task, m.id))::int AS n FROM (
        SELECT m.*, ${momentTaskOf("m")} AS moment_task FROM "message" m
        WHERE m."conversationId" = ${id} AND m.seq > ${target} AND ${speaks("m")}
        ORDER BY m.seq LIMIT ${UNREAD_COUNT_CAP}
      ) m LEFT JOIN "task" t ON t.id = m.moment_task
      WHERE NOT ${heldUntilDue("m", "t")}`;
    // updatedAt stays: reading is not activity, and the list is ordered by it.
    const updated = await tx.conversation.update({ where: { id }, data: { lastReadSeq: target, unreadCount: n } });
    const conversation = toPublicConversation(updated);
    await emitEvent(tx, ownerId, { type: "conversation.updated", data: { conversation } }, { conversationId: id });
    return conversation;
  });
}
