import { getDb } from "@/lib/db/client";
import { emitEvent } from "@/lib/events/emit";
import { toPublicConversation } from "@/lib/contract/message";

export const DEFAULT_TITLE = "New chat";

export async function createConversation(ownerId: string, title?: string) {
  return getDb().$transaction(async (tx) => {
    const c = await tx.conversation.create({ data: { ownerId, title: title?.trim() || DEFAULT_TITLE } });
    const conversation = toPublicConversation(c);
    await emitEvent(tx, ownerId, { type: "conversation.updated", data: { conversation } }, { conversationId: c.id });
    return conversation;
  });
}
