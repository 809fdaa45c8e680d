import { transaction } from "@/lib/db/kysely";
import { emitEvent } from "@/lib/events/emit";
import { admitConversation } from "@/lib/limits/conversation-quota";
import { toPublicConversation } from "@/lib/contract/message";
import type { PublicConversation } from "@/lib/contract/shapes";
import { insertConversation, newestEmptyConversation } from "./sql";
import { DEFAULT_TITLE } from "./titles";

export async function createConversation(ownerId: string, title?: string): Promise<PublicConversation> {
  return transaction(async (tx) => {
    await admitConversation(tx, ownerId);
    const given = title?.trim();
    const c = await insertConversation(tx, {
      ownerId,
      title: given || DEFAULT_TITLE,
      titleSource: given ? "user" : "none",
    });
    const conversation = toPublicConversation(c);
    await emitEvent(tx, ownerId, { type: "conversation.updated", data: { conversation } }, { conversationId: c.id });
    return conversation;
  });
}

/**
 * "New chat": the account's newest conversation nothing was ever written in,
 * or a new one when there is none. Clicking "New chat" again and again leaves
 * one empty chat, not a pile, and the sidebar lists none of them until the
 * first message. `created` says which (201 or 200).
 */
export async function openDraftConversation(
  ownerId: string,
): Promise<{ conversation: PublicConversation; created: boolean }> {
  const empty = await newestEmptyConversation(ownerId);
  if (empty) return { conversation: toPublicConversation(empty), created: false };
  return { conversation: await createConversation(ownerId), created: true };
}
