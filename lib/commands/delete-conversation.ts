import { getDb } from "@/lib/db/client";
import { cancelConversationRuns } from "@/lib/runs/sql";
import { emitEvent } from "@/lib/events/emit";
import { notFound } from "@/lib/errors/api-error";
import { toPublicConversation } from "@/lib/contract/message";
import { TERMINAL_STATUSES } from "@/lib/contract/task";
import { deadLetterConversation } from "@/lib/notify/sql";
import { fenceCancel } from "@/lib/tasks/request-cancel";

/**
 * Soft delete: the row stays for audit and for tasks that still point at it,
 * but every read filters it out. A command rather than a chat function because
 * it spans three domains in one transaction: queued turns are cancelled, every
 * active task gets the cancel fence (the cancel loop finishes the job), and
 * notifications still pending dead-letter with a reason instead of retrying
 * into a conversation that no longer exists.
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
    const tasks = await tx.task.findMany({
      where: { ownerId, conversationId: id, status: { notIn: [...TERMINAL_STATUSES] }, cancelRequestedAt: null },
      select: { id: true },
    });
    for (const t of tasks) await fenceCancel(tx, ownerId, t.id);
    await deadLetterConversation(tx, ownerId, id);
    const c = await tx.conversation.findUniqueOrThrow({ where: { id } });
    await emitEvent(
      tx,
      ownerId,
      { type: "conversation.updated", data: { conversation: toPublicConversation(c), deleted: true } },
      { conversationId: id },
    );
  });
}
