import { getDb } from "@/lib/db/client";
import { cancelConversationRuns } from "@/lib/runs/sql";
import { emitEvent } from "@/lib/events/emit";
import { notFound } from "@/lib/errors/api-error";
import { toPublicConversation } from "./public";
import { onConversationDeleted } from "@/lib/tasks/on-conversation-deleted";

/**
 * Soft delete: the row stays for audit and for tasks that still point at it,
 * but every read filters it out. Queued turns are cancelled; active background
 * tasks are asked to cancel and their pending notifications dead-letter.
 */
export async function deleteConversation(ownerId: string, id: string): Promise<void> {
  await getDb().$transaction(async (tx) => {
    // Lock in the order every other writer uses (run → conversation, task →
    // conversation → user): runs, then tasks by id, then the conversation.
    // Taking the conversation first would deadlock with a reply or a step committing.
    await tx.$queryRaw`SELECT id FROM "run" WHERE "conversationId" = ${id} AND "ownerId" = ${ownerId} ORDER BY id FOR UPDATE`;
    await tx.$queryRaw`SELECT id FROM "task" WHERE "conversationId" = ${id} AND "ownerId" = ${ownerId} ORDER BY id FOR UPDATE`;
    const rows = await tx.$queryRaw<{ id: string }[]>`
      UPDATE "conversation" SET "deletedAt" = now(), "updatedAt" = now()
      WHERE id = ${id} AND "ownerId" = ${ownerId} AND "deletedAt" IS NULL RETURNING id`;
    if (rows.length === 0) throw notFound("Conversation");
    await cancelConversationRuns(tx, id);
    await onConversationDeleted(tx, ownerId, id);
    const c = await tx.conversation.findUniqueOrThrow({ where: { id } });
    await emitEvent(
      tx,
      ownerId,
      { type: "conversation.updated", data: { conversation: toPublicConversation(c), deleted: true } },
      { conversationId: id },
    );
  });
}
