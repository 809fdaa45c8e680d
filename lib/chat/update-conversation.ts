import { transaction } from "@/lib/db/kysely";
import { emitEvent } from "@/lib/events/emit";
import { ApiError, notFound } from "@/lib/errors/api-error";
import { toPublicConversation } from "@/lib/contract/message";
import { MAX_PINNED_CONVERSATIONS } from "@/lib/contract/schemas";
import type { PublicConversation } from "@/lib/contract/shapes";
import { lockAccount } from "@/lib/limits/sql";
import { countPinned, lockConversation, patchConversation } from "./sql";

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
  return transaction(async (tx) => {
    const row = await lockConversation(tx, ownerId, id);
    if (!row) throw notFound("Conversation");
    if (patch.pinned === true && row.pinnedAt === null) {
      // Under the account lock, so two tabs pinning at once cannot both take the last place.
      await lockAccount(tx, ownerId);
      if ((await countPinned(tx, ownerId)) >= MAX_PINNED_CONVERSATIONS) {
        throw new ApiError(
          "quota_exceeded",
          `pinned: you can pin up to ${MAX_PINNED_CONVERSATIONS} conversations; unpin one first`,
          "pinned",
          60,
        );
      }
    }
    const updated = await patchConversation(tx, id, patch);
    const conversation = toPublicConversation(updated);
    await emitEvent(tx, ownerId, { type: "conversation.updated", data: { conversation } }, { conversationId: id });
    return conversation;
  });
}
