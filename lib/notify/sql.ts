import { jsonOrNull, PREPARED, queryRows, type SqlTx, type Tx } from "@/lib/db/client";
import { Prisma, type Task } from "@/lib/db/generated/client.ts";
import { fairPick, onlyRows } from "@/lib/limits/fair-claim";
import { RUN_ACTIVE_STATUSES, RUN_FINISHED_STATUSES } from "@/lib/contract/shapes";
import { sqlList } from "@/lib/db/sql-list";
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

const CLAIMABLE_SQL = sqlList(CLAIMABLE);
const RUN_ACTIVE_SQL = sqlList(RUN_ACTIVE_STATUSES);
const RUN_FINISHED_SQL = sqlList(RUN_FINISHED_STATUSES);

/** A row this worker holds a notification lease on. */
export type ClaimedNotification = Task & { notifyLeaseToken: string };

export interface Fence {
  id: string;
  token: string;
  dispatchVersion: number | null;
}

export interface Locked {
  task: Task;
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
 * Fair across accounts (lib/limits/fair-claim.ts).
 */
export async function claimNotificationLeases(
  workerId: string,
  limit: number,
  leaseMs: number,
  onlyTaskIds?: string[],
): Promise<Fence[]> {
  if (limit <= 0) return [];
  const sql = claimNotificationSql(workerId, limit, leaseMs, onlyTaskIds ?? null);
  const rows = await queryRows<{ id: string; token: string; dispatchVersion: number | null }>(sql);
  return rows.map((r) => ({ id: r.id, token: r.token, dispatchVersion: r.dispatchVersion }));
}

/** The statement itself, for EXPLAIN in the index test. */
export function claimNotificationSql(
  workerId: string,
  limit: number,
  leaseMs: number,
  only: string[] | null,
): Prisma.Sql {
  const leaseSeconds = leaseMs / 1000;
  // The notificationStatus predicate repeats task_notify_due_idx's WHERE so the planner can use it.
  const due = (alias: string) => {
    const c = Prisma.raw(alias);
    return Prisma.sql`${c}."notificationStatus" IN (${CLAIMABLE_SQL})
      AND ${c}."eventVersion" > ${c}."notifiedVersion"
      AND (${c}."notifyLeaseExpiresAt" IS NULL OR ${c}."notifyLeaseExpiresAt" < now())
      AND (${c}."nextNotificationAt" IS NULL OR ${c}."nextNotificationAt" <= now()
           -- A scalar lookup by primary key, not EXISTS: under the OR the planner
           -- would otherwise hash the whole run table.
           OR (${c}."notificationStatus" = 'dispatched'
               AND (SELECT r.status FROM "run" r WHERE r.id = ${c}."notificationRunId") IN (${RUN_FINISHED_SQL})))
      ${onlyRows(c, only)}`;
  };
  const pick = fairPick({
    table: "task",
    due,
    order: Prisma.sql`c."nextNotificationAt" NULLS FIRST, c.id`,
    held: Prisma.sql`h."notifyLeaseToken" IS NOT NULL AND h."notifyLeaseExpiresAt" > now()`,
    limit,
  });
  return Prisma.sql`
    UPDATE "task" t
    SET "notifyLeaseOwner" = ${workerId}, "notifyLeaseToken" = gen_random_uuid()::text,
        "notifyLeaseExpiresAt" = now() + make_interval(secs => ${leaseSeconds})
    WHERE t.id IN (${pick})
    RETURNING t.id, t."notifyLeaseToken" AS token, t."dispatchVersion"`;
}

/**
 * Locks the row for a post-claim transition if this claim still owns it in the
 * expected phase. Holding the row lock for the rest of the transaction also
 * serialises against recordEventAndAnnounce, so decisions see a stable version.
 */
export async function lockClaimed(
  tx: SqlTx,
  fence: Fence,
  statuses: readonly NotificationStatus[] = IN_FLIGHT,
): Promise<Locked | null> {
  const rows = await tx.$queryRaw<(Task & { dbNow: Date })[]>`${PREPARED}
    SELECT *, clock_timestamp() AS "dbNow" FROM "task"
    WHERE id = ${fence.id}
      AND "notifyLeaseToken" = ${fence.token}
      AND "notifyLeaseExpiresAt" > clock_timestamp()
      AND "notificationStatus" = ANY(${[...statuses]}::text[])
      AND "dispatchVersion" IS NOT DISTINCT FROM ${fence.dispatchVersion}::int
    FOR UPDATE`;
  return rows.length === 0 ? null : locked(rows[0]);
}

/** The row as the lock read it (one round trip, not a lock and then a read). */
function locked({ dbNow, ...task }: Task & { dbNow: Date }): Locked {
  return { task, dbNow };
}

/** Locks the row for recording an event (T1), whoever holds the notification lease. */
export async function lockTaskForEvent(tx: SqlTx, taskId: string): Promise<Locked | null> {
  const rows = await tx.$queryRaw<(Task & { dbNow: Date })[]>`${PREPARED}
    SELECT *, clock_timestamp() AS "dbNow" FROM "task" WHERE id = ${taskId} FOR UPDATE`;
  return rows.length === 0 ? null : locked(rows[0]);
}

/**
 * Stores a decision. With a token the write is fenced by it (the caller already
 * holds the row lock from lockClaimed, so this is belt and braces); without
 * one it is T1, which only runs under lockTaskForEvent.
 */
export async function applyOutboxPatch(
  tx: SqlTx,
  target: { id: string; token?: string },
  patch: OutboxPatch,
  dbNow: Date,
  opts: { touch?: boolean } = {},
): Promise<Task> {
  const set: Prisma.Sql[] = [];
  const to = (column: string, value: unknown) => set.push(Prisma.sql`${Prisma.raw(`"${column}"`)} = ${value}`);
  // A change the user can see (notification status, attempts, error) moves updatedAt,
  // which is how browsers tell a newer copy of the task from an older one.
  if (opts.touch) set.push(Prisma.sql`"updatedAt" = ${dbNow}::timestamptz`);
  if (patch.notificationStatus !== undefined) to("notificationStatus", patch.notificationStatus);
  if (patch.eventFingerprint !== undefined) to("eventFingerprint", patch.eventFingerprint);
  if (patch.eventVersion !== undefined) to("eventVersion", patch.eventVersion);
  if (patch.notifiedVersion !== undefined) to("notifiedVersion", patch.notifiedVersion);
  if (patch.dispatchVersion !== undefined) to("dispatchVersion", patch.dispatchVersion);
  if (patch.dispatchAttempt !== undefined) to("dispatchAttempt", patch.dispatchAttempt);
  if (patch.dispatchEvent !== undefined)
    set.push(Prisma.sql`"dispatchEvent" = ${jsonOrNull(patch.dispatchEvent)}::jsonb`);
  if (patch.notificationRunId !== undefined) to("notificationRunId", patch.notificationRunId);
  if (patch.notificationError !== undefined) to("notificationError", patch.notificationError);
  if (patch.notificationAttempts !== undefined) to("notificationAttempts", patch.notificationAttempts);
  if (patch.nextInMs !== undefined) {
    set.push(
      Prisma.sql`"nextNotificationAt" = ${patch.nextInMs === null ? null : new Date(dbNow.getTime() + patch.nextInMs)}::timestamptz`,
    );
  }
  if (patch.releaseLease)
    set.push(Prisma.sql`"notifyLeaseOwner" = NULL, "notifyLeaseToken" = NULL, "notifyLeaseExpiresAt" = NULL`);
  const fence = target.token === undefined ? Prisma.empty : Prisma.sql`AND "notifyLeaseToken" = ${target.token}`;
  const [row] = await tx.$queryRaw<Task[]>`
    UPDATE "task" SET ${set.length ? Prisma.join(set) : Prisma.sql`id = id`} WHERE id = ${target.id} ${fence} RETURNING *`;
  // The caller holds the row lock (and the fence): a miss is a bug, not a race.
  if (!row) throw new Error(`applyOutboxPatch: task ${target.id} not found under its fence`);
  return row;
}

/** The conversation is being deleted: its pending notifications stop for good (no retry into nothing). */
export async function deadLetterConversation(tx: Tx, ownerId: string, conversationId: string): Promise<void> {
  await tx.$executeRaw`
    UPDATE "task" SET "notificationStatus" = 'dead_letter', "notificationError" = 'conversation deleted',
      "nextNotificationAt" = NULL, "notifyLeaseOwner" = NULL, "notifyLeaseToken" = NULL, "notifyLeaseExpiresAt" = NULL
    WHERE "conversationId" = ${conversationId} AND "ownerId" = ${ownerId}
      AND "notificationStatus" IN (${CLAIMABLE_SQL})`;
}

/** The conversation a notification goes to, if it still exists for that owner. */
export async function liveConversation(tx: SqlTx, conversationId: string, ownerId: string): Promise<boolean> {
  const rows = await tx.$queryRaw<{ id: string }[]>`
    SELECT id FROM "conversation" WHERE id = ${conversationId} AND "ownerId" = ${ownerId} AND "deletedAt" IS NULL`;
  return rows.length === 1;
}

/** Same predicate as the run loop's "one active run per conversation". */
export async function conversationBusy(tx: SqlTx, conversationId: string): Promise<boolean> {
  const rows = await tx.$queryRaw<{ one: number }[]>`
    SELECT 1 AS one FROM "run" WHERE "conversationId" = ${conversationId} AND status IN (${RUN_ACTIVE_SQL}) LIMIT 1`;
  return rows.length > 0;
}

export async function publicationPartial(tx: SqlTx, publicationId: string): Promise<boolean | null> {
  const rows = await tx.$queryRaw<
    { partial: boolean }[]
  >`SELECT partial FROM "publication" WHERE id = ${publicationId}`;
  return rows[0]?.partial ?? null;
}
