import type { Tx } from "@/lib/db/client";
import { deadLetterConversation } from "@/lib/notify/sql";
import { fenceCancel } from "./request-cancel";

/**
 * Inside the conversation-deletion transaction: every active task of the
 * conversation gets the cancel fence (the cancel loop finishes the job), and
 * notifications still pending for it dead-letter with a reason instead of
 * retrying into a conversation that no longer exists.
 */
export async function onConversationDeleted(tx: Tx, ownerId: string, conversationId: string): Promise<void> {
  const tasks = await tx.task.findMany({
    where: { ownerId, conversationId, status: { notIn: ["succeeded", "failed", "cancelled"] }, cancelRequestedAt: null },
    select: { id: true },
  });
  for (const t of tasks) await fenceCancel(tx, ownerId, t.id);
  await deadLetterConversation(tx, ownerId, conversationId);
}
