// A person's commands on their task (cancel, answer, new instructions) and what deleting their chat or account does to
// its tasks: each on the row locked by lockOwnedTask / lockOwnerTasks.
import { sql } from "kysely";
import { jsonb, type Executor, type Tx } from "@/lib/db/kysely";
import { TERMINAL_SQL, type TaskRow } from "./sql";

/** The owner's task, locked for a command; null for a foreign or missing id. */
export async function lockOwnedTask(tx: Tx, ownerId: string, id: string): Promise<TaskRow | null> {
  const row = await tx
    .selectFrom("task")
    .selectAll()
    .where("id", "=", id)
    .where("ownerId", "=", ownerId)
    .forUpdate()
    .executeTakeFirst();
  return row ?? null;
}

/** Any active → (same) + cancel fence: no further step may commit; the cancel loop takes over. */
export async function setCancelFence(tx: Executor, id: string, answeredInChat = false): Promise<TaskRow> {
  return tx
    .updateTable("task")
    .set({
      cancelRequestedAt: sql<Date>`now()`,
      nextCancelAt: sql<Date>`coalesce("nextCancelAt", now())`,
      updatedAt: sql<Date>`now()`,
      cancelAnsweredInChat: sql<boolean>`"cancelAnsweredInChat" OR ${answeredInChat}`,
      leaseOwner: null,
      leaseToken: null,
      leaseExpiresAt: null,
    })
    .where("id", "=", id)
    .returningAll()
    .executeTakeFirstOrThrow();
}

/** A chat turn asked again for a cancel already under way: its reply says it, so the terminal line goes hidden. */
export async function markCancelAnsweredInChat(tx: Executor, id: string): Promise<void> {
  await tx.updateTable("task").set({ cancelAnsweredInChat: true }).where("id", "=", id).execute();
}

/** Stores the user's answer for the next claim to hand over (input_required stays until then). */
export async function storeInputResponse(tx: Tx, id: string, response: string): Promise<TaskRow> {
  return tx
    .updateTable("task")
    .set({ inputResponse: jsonb({ response }), nextRunAt: sql<Date>`now()`, updatedAt: sql<Date>`now()` })
    .where("id", "=", id)
    .returningAll()
    .executeTakeFirstOrThrow();
}

/** queued|running → updating with one more instruction for the next step. */
export async function appendPendingUpdate(tx: Tx, id: string, pending: string[]): Promise<TaskRow> {
  return tx
    .updateTable("task")
    .set({
      pendingUpdates: jsonb(pending),
      updatedAt: sql<Date>`now()`,
      status: sql<string>`CASE WHEN status IN ('queued', 'running') THEN 'updating' ELSE status END`,
    })
    .where("id", "=", id)
    .returningAll()
    .executeTakeFirstOrThrow();
}

/** Locks the owner's tasks (of one conversation, if given) in id order, as a deletion does after the runs. */
export async function lockOwnerTasks(tx: Tx, ownerId: string, conversationId?: string): Promise<TaskRow[]> {
  return tx
    .selectFrom("task")
    .selectAll()
    .where("ownerId", "=", ownerId)
    .$if(conversationId !== undefined, (qb) => qb.where("conversationId", "=", conversationId!))
    .orderBy("id")
    .forUpdate()
    .execute();
}

/** The conversation's tasks still active and not yet fenced for a cancel. */
export async function uncancelledTaskIds(tx: Tx, ownerId: string, conversationId: string): Promise<string[]> {
  const rows = await tx
    .selectFrom("task")
    .select("id")
    .where("ownerId", "=", ownerId)
    .where("conversationId", "=", conversationId)
    .where("status", "not in", TERMINAL_SQL)
    .where("cancelRequestedAt", "is", null)
    .execute();
  return rows.map((r) => r.id);
}

/** The account's tasks with their steps and publications, on its deletion (children first). */
export async function deleteOwnerTasks(tx: Tx, ownerId: string): Promise<void> {
  await tx
    .deleteFrom("task_step")
    .where("taskId", "in", tx.selectFrom("task").select("id").where("ownerId", "=", ownerId))
    .execute();
  await tx.deleteFrom("publication").where("ownerId", "=", ownerId).execute();
  await tx.deleteFrom("task").where("ownerId", "=", ownerId).execute();
}

/**
 * A task start's locks, in writer order: the owner's live conversation (shared), then the account (its lock serialises
 * the account's starts for the quota). No row when the conversation is not theirs or gone, and none when the task of
 * this clientRequestId exists: a retry then takes neither lock (a worker holds that task's row and takes the account's
 * lock last; a retry waiting on the row under that lock was a deadlock). `now` is the transaction's clock.
 */
export async function lockStartConversation(
  tx: Tx,
  input: { conversationId: string; ownerId: string; clientRequestId: string },
): Promise<{ id: string; now: Date }[]> {
  const { rows: conv } = await sql<{ id: string; now: Date }>`
        SELECT c.id, now() AS now FROM "conversation" c JOIN "user" u ON u.id = c."ownerId"
        WHERE c.id = ${input.conversationId} AND c."ownerId" = ${input.ownerId} AND c."deletedAt" IS NULL
          AND NOT EXISTS (SELECT 1 FROM "task" t WHERE t."ownerId" = ${input.ownerId} AND t."clientRequestId" = ${input.clientRequestId})
        FOR SHARE OF c FOR UPDATE OF u`.execute(tx);
  return conv;
}
