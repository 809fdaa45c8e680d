import type { DB } from "@/lib/db/generated/kysely.ts";
import { db, jsonb, prepared, type Executor, type Tx } from "@/lib/db/kysely";
import { fairPick, onlyRows } from "@/lib/limits/fair-claim-sql";
import { RUN_ACTIVE_STATUSES, RUN_FINISHED_STATUSES } from "@/lib/contract/shapes";
import { literals } from "@/lib/db/sql-list";
import type { TaskRow } from "@/lib/tasks/sql";
import { sql, type Updateable } from "kysely";
import { CLAIMABLE, IN_FLIGHT, type NotificationStatus, type OutboxPatch } from "./state";

/**
 * Every statement of the notification outbox lives here. The decisions are in
 * ./state.ts (with the transition table); this file only claims rows, fences
 * writes with the lease, and stores what was decided.
 *
 * Fence for every write after a claim: notifyLeaseToken = the claim's token
 * AND lease not expired AND notificationStatus in the expected phase AND
 * dispatchVersion as claimed. A miss means another worker owns the row now.
 */

const CLAIMABLE_LIST = literals(CLAIMABLE);
const RUN_ACTIVE_LIST = literals(RUN_ACTIVE_STATUSES);
const RUN_FINISHED_LIST = literals(RUN_FINISHED_STATUSES);

/** A row this worker holds a notification lease on. */
export type ClaimedNotification = TaskRow & { notifyLeaseToken: string };

export type Fence = Pick<TaskRow, "id" | "dispatchVersion"> & { token: string };

export interface Locked {
  task: TaskRow;
  /** Database clock at the moment the row was locked; schedules are computed from it. */
  dbNow: Date;
}

export const fenceOf = (row: ClaimedNotification): Fence => ({
  id: row.id,
  token: row.notifyLeaseToken,
  dispatchVersion: row.dispatchVersion,
});

/**
 * Takes the notification lease on up to `limit` due rows in one statement,
 * with a fresh token per row. Due = pending work, schedule reached (or, for a
 * dispatched row, its narration run already finished: the run loop's wake-up
 * is then worth acting on), and no live lease. Status is left alone: the claim
 * transitions (T2–T6) are decided per row afterwards under the new token.
 * Fair across accounts (lib/limits/fair-claim-sql.ts).
 */
export async function claimNotificationLeases(
  workerId: string,
  limit: number,
  leaseMs: number,
  onlyTaskIds?: string[],
): Promise<Fence[]> {
  if (limit <= 0) return [];
  return (await claimNotificationSql(workerId, limit, leaseMs, onlyTaskIds ?? null).execute(db())).rows;
}

/** The statement itself, for EXPLAIN in the index test. */
export function claimNotificationSql(workerId: string, limit: number, leaseMs: number, only: string[] | null) {
  const leaseSeconds = leaseMs / 1000;
  // The notificationStatus predicate repeats task_notify_due_idx's WHERE so the planner can use it.
  const due = (alias: string) => {
    const c = sql.raw(alias);
    return sql`${c}."notificationStatus" IN ${CLAIMABLE_LIST}
      AND ${c}."eventVersion" > ${c}."notifiedVersion"
      AND (${c}."notifyLeaseExpiresAt" IS NULL OR ${c}."notifyLeaseExpiresAt" < now())
      AND (${c}."nextNotificationAt" IS NULL OR ${c}."nextNotificationAt" <= now()
           -- A scalar lookup by primary key, not EXISTS: under the OR the planner
           -- would otherwise hash the whole run table.
           OR (${c}."notificationStatus" = 'dispatched'
               AND (SELECT r.status FROM "run" r WHERE r.id = ${c}."notificationRunId") IN ${RUN_FINISHED_LIST}))
      ${onlyRows(alias, only)}`;
  };
  const pick = fairPick({
    table: "task",
    due,
    order: sql`c."nextNotificationAt" NULLS FIRST, c.id`,
    held: sql`h."notifyLeaseToken" IS NOT NULL AND h."notifyLeaseExpiresAt" > now()`,
    limit,
  });
  // A template around the pick, as every lease loop's claim (claimExecutionSql in lib/tasks/sql.ts).
  return sql<Fence>`${prepared}
    UPDATE "task" t
    SET "notifyLeaseOwner" = ${workerId}, "notifyLeaseToken" = gen_random_uuid()::text,
        "notifyLeaseExpiresAt" = now() + make_interval(secs => ${leaseSeconds})
    WHERE t.id IN (${pick})
    RETURNING t.id, t."notifyLeaseToken" AS token, t."dispatchVersion"`;
}

// The statements below run for every task, several times (a notice, its narration run, each outbox step): they are
// `sql` templates, compiled once per shape, where the builder cost 10-20 µs of CPU each to build and compile and was
// most of the task path's time in Kysely (docs/benchmarks.md, "Typed SQL").

/** The row with the database clock, locked for the rest of the transaction, if `guard` holds. */
const lockedTask = (id: string, guard = sql``) => sql<TaskRow & { dbNow: Date }>`${prepared}
  SELECT *, clock_timestamp() AS "dbNow" FROM "task" WHERE id = ${id} ${guard} FOR UPDATE`;

/**
 * Locks the row for a post-claim transition if this claim still owns it in the
 * expected phase. Holding the row lock for the rest of the transaction also
 * serialises against recordEventAndAnnounce, so decisions see a stable version.
 */
export async function lockClaimed(
  tx: Tx,
  fence: Fence,
  statuses: readonly NotificationStatus[] = IN_FLIGHT,
): Promise<Locked | null> {
  const {
    rows: [row],
  } = await lockedTask(
    fence.id,
    sql`AND "notifyLeaseToken" = ${fence.token} AND "notifyLeaseExpiresAt" > clock_timestamp()
      AND "notificationStatus" = ANY(${[...statuses]}::text[])
      AND "dispatchVersion" IS NOT DISTINCT FROM ${fence.dispatchVersion}::int`,
  ).execute(tx);
  return row ? locked(row) : null;
}

/** The row as the lock read it (one round trip, not a lock and then a read). */
function locked({ dbNow, ...task }: TaskRow & { dbNow: Date }): Locked {
  return { task, dbNow };
}

/** Locks the row for recording an event (T1), whoever holds the notification lease. */
export async function lockTaskForEvent(tx: Tx, taskId: string): Promise<Locked | null> {
  const {
    rows: [row],
  } = await lockedTask(taskId).execute(tx);
  return row ? locked(row) : null;
}

/**
 * Stores a decision. With a token the write is fenced by it (the caller already
 * holds the row lock from lockClaimed, so this is belt and braces); without
 * one it is T1, which only runs under lockTaskForEvent.
 */
export async function applyOutboxPatch(
  tx: Executor,
  target: { id: string; token?: string },
  patch: OutboxPatch,
  dbNow: Date,
  opts: { touch?: boolean } = {},
): Promise<TaskRow> {
  // Column names are the patch's own keys (OutboxPatch, a type of this module), never input; the values are parameters.
  const set = Object.entries(outboxColumns(patch, dbNow, opts))
    .filter(([, v]) => v !== undefined)
    .map(([column, v]) => sql`${sql.raw(`"${column}"`)} = ${v}`);
  const {
    rows: [row],
  } = await sql<TaskRow>`
    -- Nothing to change still returns the row (id = id).
    UPDATE "task" SET ${set.length > 0 ? sql.join(set) : sql`id = id`}
    WHERE id = ${target.id} ${target.token !== undefined ? sql`AND "notifyLeaseToken" = ${target.token}` : sql``}
    RETURNING *`.execute(tx);
  // The caller holds the row lock (and the fence): a miss is a bug, not a race.
  if (!row) throw new Error(`applyOutboxPatch: task ${target.id} not found under its fence`);
  return row;
}

/** The columns a patch writes, schedules from the database clock the lock read. */
function outboxColumns(patch: OutboxPatch, dbNow: Date, opts: { touch?: boolean }): Updateable<DB["task"]> {
  const { nextInMs, releaseLease, dispatchEvent, ...plain } = patch;
  return {
    ...plain,
    // A change the user can see (notification status, attempts, error) moves updatedAt,
    // which is how browsers tell a newer copy of the task from an older one.
    ...(opts.touch ? { updatedAt: dbNow } : {}),
    ...(dispatchEvent !== undefined ? { dispatchEvent: jsonb(dispatchEvent) } : {}),
    ...(nextInMs !== undefined
      ? { nextNotificationAt: nextInMs === null ? null : new Date(dbNow.getTime() + nextInMs) }
      : {}),
    ...(releaseLease ? { notifyLeaseOwner: null, notifyLeaseToken: null, notifyLeaseExpiresAt: null } : {}),
  };
}

/** The conversation is being deleted: its pending notifications stop for good (no retry into nothing). */
export async function deadLetterConversation(tx: Tx, ownerId: string, conversationId: string): Promise<void> {
  await tx
    .updateTable("task")
    .set({
      notificationStatus: "dead_letter",
      notificationError: "conversation deleted",
      nextNotificationAt: null,
      notifyLeaseOwner: null,
      notifyLeaseToken: null,
      notifyLeaseExpiresAt: null,
    })
    .where("conversationId", "=", conversationId)
    .where("ownerId", "=", ownerId)
    .where("notificationStatus", "in", CLAIMABLE_LIST)
    .execute();
}

/** The conversation a notification goes to, if it still exists for that owner. */
export async function liveConversation(tx: Tx, conversationId: string, ownerId: string): Promise<boolean> {
  const { rows } = await sql`
    SELECT 1 FROM "conversation" WHERE id = ${conversationId} AND "ownerId" = ${ownerId} AND "deletedAt" IS NULL`.execute(
    tx,
  );
  return rows.length > 0;
}

/** Same predicate as the run loop's "one active run per conversation". */
export async function conversationBusy(tx: Tx, conversationId: string): Promise<boolean> {
  const { rows } = await sql`
    SELECT 1 FROM "run" WHERE "conversationId" = ${conversationId} AND status IN ${RUN_ACTIVE_LIST} LIMIT 1`.execute(
    tx,
  );
  return rows.length > 0;
}

export async function publicationPartial(tx: Executor, publicationId: string): Promise<boolean | null> {
  const {
    rows: [row],
  } = await sql<{ partial: boolean }>`SELECT partial FROM "publication" WHERE id = ${publicationId}`.execute(tx);
  return row?.partial ?? null;
}
