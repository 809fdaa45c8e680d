import { transaction } from "@/lib/db/kysely";
import { emitEvent } from "@/lib/events/emit";
import { notFound } from "@/lib/errors/api-error";
import { toPublicConversation } from "@/lib/contract/message";
import type { PublicConversation } from "@/lib/contract/shapes";
import { countUnreadMoments, lockConversation, setReadMark } from "./sql";

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
  return transaction(async (tx) => {
    const row = await lockConversation(tx, ownerId, id);
    if (!row) throw notFound("Conversation");
    const target = Math.min(seq, row.messageSeq);
    if (target <= row.lastReadSeq) return toPublicConversation(row);
    const n = await countUnreadMoments(tx, id, target, UNREAD_COUNT_CAP);
    const updated = await setReadMark(tx, id, target, n);
    const conversation = toPublicConversation(updated);
    await emitEvent(tx, ownerId, { type: "conversation.updated", data: { conversation } }, { conversationId: id });
    return conversation;
  });
}
