import { getDb, PREPARED, type SqlTx } from "@/lib/db/client";
import { Prisma, type Notice, type Task } from "@/lib/db/generated/client.ts";
import { TERMINAL_STATUSES } from "@/lib/contract/task";
import type { NoticeSpec } from "./contract";

/**
 * Every statement of timed delivery (the due loop and the notice writer). The
 * decisions are pure (./contract.ts, with the table of which notice a moment
 * gets); this file only finds due rows and stores what was decided:
 *
 *   task.dueEvaluatedAt   NULL → now()     once, when the due moment is evaluated (markDueEvaluated),
 *                                          or when the task ends cancelled / failed before it (closeAtEnd)
 *   task.deliveryOutcome  NULL → outcome   once: at due evaluation, or at completion of a by-contract (setDeliveryOutcomeOnce)
 *   notice (taskId, key)  —   → row        once per key (insertNotice; ON CONFLICT DO NOTHING)
 *
 * Stopping a task at its deadline goes through the task's own writes (lib/tasks/sql.ts).
 *
 * Only rows whose promise is still open are ever due (DUE_OPEN): a task that
 * ended cancelled or failed, or whose user cancel is under way, is never judged
 * at its old dueAt. A fence on an unevaluated row is always the user's (or a
 * deleted conversation's): the due loop's own stop fences only after it stamped
 * dueEvaluatedAt. A cancel that loses the race to a finished result (succeeded)
 * is due again, so an "at" result still gets its notice.
 */
const TERMINAL = Prisma.raw(TERMINAL_STATUSES.map((s) => `'${s}'`).join(", "));
const DUE_OPEN = Prisma.sql`("status" = 'succeeded' OR ("status" NOT IN (${TERMINAL}) AND "cancelRequestedAt" IS NULL))`;

/** Due and not yet evaluated, oldest due first; `busy` are rows this worker is evaluating. */
export async function findDue(limit: number, busy: string[]): Promise<string[]> {
  const rows = await getDb().$queryRaw<{ id: string }[]>`
    SELECT id FROM "task"
    WHERE "dueAt" IS NOT NULL AND "dueEvaluatedAt" IS NULL AND "dueAt" <= now() AND ${DUE_OPEN} AND NOT (id = ANY(${busy}))
    ORDER BY "dueAt" LIMIT ${limit}`;
  return rows.map((r) => r.id);
}

/** Milliseconds until the earliest unevaluated dueAt, ignoring `busy` rows. */
export async function nextDueMs(busy: string[] = []): Promise<number | null> {
  const [row] = await getDb().$queryRaw<{ ms: number | null }[]>`
    SELECT (extract(epoch FROM (min("dueAt") - now())) * 1000)::float8 AS ms
    FROM "task" WHERE "dueAt" IS NOT NULL AND "dueEvaluatedAt" IS NULL AND ${DUE_OPEN} AND NOT (id = ANY(${busy}))`;
  return row?.ms === null || row?.ms === undefined ? null : Math.max(0, row.ms);
}

/** Locks a due, unevaluated row (SKIP LOCKED: another worker evaluating it wins). */
export async function lockDue(tx: SqlTx, id: string): Promise<(Task & { dbNow: Date }) | null> {
  const rows = await tx.$queryRaw<(Task & { dbNow: Date })[]>`
    SELECT *, now() AS "dbNow" FROM "task"
    WHERE id = ${id} AND "dueAt" IS NOT NULL AND "dueEvaluatedAt" IS NULL AND "dueAt" <= now() AND ${DUE_OPEN}
    FOR UPDATE SKIP LOCKED`;
  return rows[0] ?? null;
}

export async function markDueEvaluated(tx: SqlTx, id: string, outcome: string | null): Promise<Task> {
  const [evaluated] = await tx.$queryRaw<Task[]>`
    UPDATE "task" SET "dueEvaluatedAt" = now(), "deliveryOutcome" = coalesce("deliveryOutcome", ${outcome}), "updatedAt" = now()
    WHERE id = ${id} RETURNING *`;
  return evaluated;
}

/**
 * A timed task that ended cancelled or failed before its due moment: the
 * promise ended there. Stamps dueEvaluatedAt (no outcome: a cancel or a failure
 * is not a missed promise), so no later evaluation can judge it. Returns the row
 * as it stands after: one statement for the write and the read the caller needs next.
 */
export async function closeAtEnd(tx: SqlTx, id: string): Promise<Task> {
  const [task] = await tx.$queryRaw<Task[]>`${PREPARED}
    WITH closed AS (
      UPDATE "task" SET "dueEvaluatedAt" = now()
      WHERE id = ${id} AND "dueAt" IS NOT NULL AND "dueEvaluatedAt" IS NULL AND "status" IN ('cancelled', 'failed')
      RETURNING *)
    SELECT * FROM closed
    UNION ALL SELECT * FROM "task" WHERE id = ${id} AND NOT EXISTS (SELECT 1 FROM closed)`;
  if (!task) throw new Error(`task ${id} not found`);
  return task;
}

export async function setDeliveryOutcomeOnce(tx: SqlTx, id: string, outcome: string): Promise<void> {
  await tx.$executeRaw`UPDATE "task" SET "deliveryOutcome" = ${outcome} WHERE id = ${id} AND "deliveryOutcome" IS NULL`;
}

/** The notice row, once per (task, key); null when it already existed. */
export async function insertNotice(tx: SqlTx, task: Task, spec: NoticeSpec, text: string): Promise<Notice | null> {
  const rows = await tx.$queryRaw<Notice[]>`${PREPARED}
    INSERT INTO "notice" (id, "taskId", "conversationId", "ownerId", key, outcome, "publicationId", text)
    VALUES (gen_random_uuid()::text, ${task.id}, ${task.conversationId}, ${task.ownerId}, ${spec.key}, ${spec.outcome}, ${spec.publicationId}, ${text})
    ON CONFLICT ("taskId", key) DO NOTHING
    RETURNING *`;
  return rows[0] ?? null;
}
