import { getDb } from "@/lib/db/client";
import type { Conversation } from "@/lib/db/generated/client.ts";
import { emitEvent } from "@/lib/events/emit";
import { ApiError, notFound } from "@/lib/errors/api-error";
import { toPublicConversation } from "@/lib/contract/message";
import { MAX_PINNED_CONVERSATIONS } from "@/lib/contract/schemas";
import type { PublicConversation } from "@/lib/contract/shapes";
import { lockAccount } from "@/lib/limits/quotas";

export interface ConversationPatch {
  title?: string;
  pinned?: boolean;
}

/**
 * Rename and pin. A title given here is the user's and is never replaced by an
 * automatic one (titleSource `user`). Copies in browsers are merged
 * newest-first, so a change other tabs must show has to be newer; but the list
 * is ordered by the same `updatedAt`, and a rename is not activity: it moves
 * `updatedAt` by the column's smallest step (1 ms) only, so the chat keeps its
 * place among the others.
 */
export async function updateConversation(
  ownerId: string,
  id: string,
  patch: ConversationPatch,
): Promise<PublicConversation> {
  return getDb().$transaction(async (tx) => {
    const [row] = await tx.$queryRaw<Conversation[]>`
      SELECT * FROM "conversation" WHERE id = ${id} AND "ownerId" = ${ownerId} AND "deletedAt" IS NULL FOR UPDATE`;
    if (!row) throw notFound("Conversation");
    if (patch.pinned === true && row.pinnedAt === null) {
      // Under the account lock, so two tabs pinning at once cannot both take the last place.
      await lockAccount(tx, ownerId);
      const pinned = await tx.conversation.count({ where: { ownerId, deletedAt: null, pinnedAt: { not: null } } });
      if (pinned >= MAX_PINNED_CONVERSATIONS) {
        throw new ApiError(
          "quota_exceeded",
          `pinned: you can pin up to ${MAX_PINNED_CONVERSATIONS} conversations; unpin one first`,
          "pinned",
          60,
        );
      }
    }
    const [updated] = await tx.$queryRaw<Conversation[]>`
      UPDATE "conversation" SET
        "title" = COALESCE(${patch.title ?? null}::text, "title"),
        "titleSource" = CASE WHEN ${patch.title ?? null}::text IS NULL THEN "titleSource" ELSE 'user' END,
        "pinnedAt" = CASE
          WHEN ${patch.pinned ?? null}::boolean IS NULL THEN "pinnedAt"
          WHEN ${patch.pinned ?? null}::boolean THEN COALESCE("pinnedAt", now())
          ELSE NULL END,
        "updatedAt" = "updatedAt" + interval '1 millisecond'
      WHERE id = ${id} RETURNING *`;
    const conversation = toPublicConversation(updated);
    await emitEvent(tx, ownerId, { type: "conversation.updated", data: { conversation } }, { conversationId: id });
    return conversation;
  });
}
