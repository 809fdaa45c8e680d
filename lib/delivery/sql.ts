import type { DB } from "@/lib/db/generated/kysely.ts";
import { db, prepared, type Executor, type Tx } from "@/lib/db/kysely";
import { literals } from "@/lib/db/sql-list";
import { TERMINAL_STATUSES } from "@/lib/contract/task";
import type { TaskRow } from "@/lib/tasks/sql";
import { sql, type Selectable } from "kysely";
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
const NOT_TERMINAL = literals(TERMINAL_STATUSES);
const DUE_OPEN = sql<boolean>`("status" = 'succeeded' OR ("status" NOT IN ${NOT_TERMINAL} AND "cancelRequestedAt" IS NULL))`;

/** A notice row as Kysely reads it (the same shape as Prisma's `Notice`). */
export type NoticeRow = Selectable<DB["notice"]>;

/** Not evaluated yet, promise still open, not among `busy` (rows this worker is evaluating). */
const unevaluated = (busy: string[]) =>
  db()
    .selectFrom("task")
    .where("dueAt", "is not", null)
    .where("dueEvaluatedAt", "is", null)
    .where(DUE_OPEN)
    .where((eb) => eb.not(eb("id", "=", eb.fn.any(sql<string[]>`${busy}::text[]`))));

/** Due and not yet evaluated, oldest due first; `busy` are rows this worker is evaluating. */
export async function findDue(limit: number, busy: string[]): Promise<string[]> {
  const rows = await unevaluated(busy)
    .select("id")
    .where("dueAt", "<=", sql<Date>`now()`)
    .orderBy("dueAt")
    .limit(limit)
    .execute();
  return rows.map((r) => r.id);
}

/** Milliseconds until the earliest unevaluated dueAt, ignoring `busy` rows. */
export async function nextDueMs(busy: string[] = []): Promise<number | null> {
  const row = await unevaluated(busy)
    .select(sql<number | null>`(extract(epoch FROM (min("dueAt") - now())) * 1000)::float8`.as("ms"))
    .executeTakeFirst();
  return row?.ms === null || row?.ms === undefined ? null : Math.max(0, row.ms);
}

/** Locks a due, unevaluated row (SKIP LOCKED: another worker evaluating it wins). */
export async function lockDue(tx: Tx, id: string): Promise<(TaskRow & { dbNow: Date }) | null> {
  const row = await tx
    .selectFrom("task")
    .selectAll()
    .select(sql<Date>`now()`.as("dbNow"))
    .where("id", "=", id)
    .where("dueAt", "is not", null)
    .where("dueEvaluatedAt", "is", null)
    .where("dueAt", "<=", sql<Date>`now()`)
    .where(DUE_OPEN)
    .forUpdate()
    .skipLocked()
    .executeTakeFirst();
  return row ?? null;
}

export async function markDueEvaluated(tx: Tx, id: string, outcome: string | null): Promise<TaskRow> {
  return tx
    .updateTable("task")
    .set({
      dueEvaluatedAt: sql<Date>`now()`,
      deliveryOutcome: sql<string | null>`coalesce("deliveryOutcome", ${outcome})`,
      updatedAt: sql<Date>`now()`,
    })
    .where("id", "=", id)
    .returningAll()
    .executeTakeFirstOrThrow();
}

/**
 * A timed task that ended cancelled or failed before its due moment: the
 * promise ended there. Stamps dueEvaluatedAt (no outcome: a cancel or a failure
 * is not a missed promise), so no later evaluation can judge it. Returns the row
 * as it stands after: one statement for the write and the read the caller needs next.
 */
export async function closeAtEnd(tx: Executor, id: string): Promise<TaskRow> {
  const {
    rows: [task],
  } = await sql<TaskRow>`${prepared}
    WITH closed AS (
      UPDATE "task" SET "dueEvaluatedAt" = now()
      WHERE id = ${id} AND "dueAt" IS NOT NULL AND "dueEvaluatedAt" IS NULL AND "status" IN ('cancelled', 'failed')
      RETURNING *)
    SELECT * FROM closed
    UNION ALL SELECT * FROM "task" WHERE id = ${id} AND NOT EXISTS (SELECT 1 FROM closed)`.execute(tx);
  if (!task) throw new Error(`task ${id} not found`);
  return task;
}

export async function setDeliveryOutcomeOnce(tx: Executor, id: string, outcome: string): Promise<void> {
  await tx
    .updateTable("task")
    .set({ deliveryOutcome: outcome })
    .where("id", "=", id)
    .where("deliveryOutcome", "is", null)
    .execute();
}

/** The notice row, once per (task, key); null when it already existed. */
export async function insertNotice(
  tx: Executor,
  task: Pick<TaskRow, "id" | "conversationId" | "ownerId">,
  spec: NoticeSpec,
  text: string,
): Promise<NoticeRow | null> {
  // A template, as every statement a task runs each time (lib/notify/sql.ts says why).
  const {
    rows: [row],
  } = await sql<NoticeRow>`${prepared}
    INSERT INTO "notice" ("taskId", "conversationId", "ownerId", key, outcome, "publicationId", text)
    VALUES (${task.id}, ${task.conversationId}, ${task.ownerId}, ${spec.key}, ${spec.outcome}, ${spec.publicationId ?? null}, ${text})
    ON CONFLICT ("taskId", key) DO NOTHING
    RETURNING *`.execute(tx);
  return row ?? null;
}

/** The account's notices, on its deletion. */
export async function deleteOwnerNotices(tx: Tx, ownerId: string): Promise<void> {
  await tx.deleteFrom("notice").where("ownerId", "=", ownerId).execute();
}

/** The task's latest publication that is not partial (its result), if any. */
export async function finalPublicationId(on: Executor, taskId: string): Promise<string | undefined> {
  const {
    rows: [final],
  } = await sql<{ id: string }>`
    SELECT id FROM "publication" WHERE "taskId" = ${taskId} AND NOT partial ORDER BY version DESC LIMIT 1`.execute(on);
  return final?.id;
}
