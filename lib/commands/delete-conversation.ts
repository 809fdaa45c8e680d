import { transaction } from "@/lib/db/kysely";
import { readConversation, softDeleteConversation } from "@/lib/chat/sql";
import { cancelConversationRuns, lockOwnerRuns } from "@/lib/runs/sql";
import { lockOwnerTasks, uncancelledTaskIds } from "@/lib/tasks/owner-sql";
import { emitEvent } from "@/lib/events/emit";
import { notFound } from "@/lib/errors/api-error";
import { toPublicConversation } from "@/lib/contract/message";
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
  await transaction(async (tx) => {
    // Lock in the order every other writer uses (run → conversation, task →
    // conversation → user): runs, then tasks by id, then the conversation.
    // Taking the conversation first would deadlock with a reply or a step committing.
    await lockOwnerRuns(tx, ownerId, id);
    await lockOwnerTasks(tx, ownerId, id);
    if (!(await softDeleteConversation(tx, ownerId, id))) throw notFound("Conversation");
    await cancelConversationRuns(tx, id);
    for (const taskId of await uncancelledTaskIds(tx, ownerId, id)) await fenceCancel(tx, ownerId, taskId);
    await deadLetterConversation(tx, ownerId, id);
    const c = await readConversation(tx, id);
    await emitEvent(
      tx,
      ownerId,
      { type: "conversation.updated", data: { conversation: toPublicConversation(c), deleted: true } },
      { conversationId: id },
    );
  });
}
