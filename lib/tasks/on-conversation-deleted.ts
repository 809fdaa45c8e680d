import type { Tx } from "@/lib/db/client";

/**
 * Called inside the conversation-deletion transaction. Background tasks land
 * with the durable task runtime; until then there is nothing to cancel.
 */
export async function onConversationDeleted(_tx: Tx, _ownerId: string, _conversationId: string): Promise<void> {}
