// The cancel loop's claim and guards: a fenced task's remote cancel, leased apart from its execution
// (docs/state-machines.md).
import { db, type Tx } from "@/lib/db/kysely";
import { fairPick } from "@/lib/limits/fair-claim-sql";
import { sql, type RawBuilder } from "kysely";
import { backoffMs, one, secs, taskLeaseMs, TERMINAL_SQL, type CancelLeasedTask, type TaskRow } from "./sql";

const cancelDue = (a: string) => {
  const c = sql.raw(a);
  return sql`${c}."cancelRequestedAt" IS NOT NULL AND ${c}.status NOT IN ${TERMINAL_SQL}
    AND ${c}."nextCancelAt" <= now() AND (${c}."cancelLeaseExpiresAt" IS NULL OR ${c}."cancelLeaseExpiresAt" < now())`;
};

export async function claimCancels(workerId: string, limit: number): Promise<CancelLeasedTask[]> {
  if (limit <= 0) return [];
  return (await claimCancelsSql(workerId, limit).execute(db())).rows;
}

export function claimCancelsSql(workerId: string, limit: number): RawBuilder<CancelLeasedTask> {
  const pick = fairPick({
    table: "task",
    due: cancelDue,
    order: sql`c."nextCancelAt", c.id`,
    held: sql`h."cancelLeaseToken" IS NOT NULL AND h."cancelLeaseExpiresAt" > now()`,
    limit,
  });
  return sql<CancelLeasedTask>`
    UPDATE "task" t
    SET "cancelLeaseOwner" = ${workerId}, "cancelLeaseToken" = gen_random_uuid()::text,
        "cancelLeaseExpiresAt" = now() + make_interval(secs => ${secs(taskLeaseMs())}),
        "cancelAttempts" = t."cancelAttempts" + 1
    WHERE t.id IN (${pick})
    RETURNING t.*`;
}

export async function lockCancelGuarded(tx: Tx, id: string, token: string): Promise<TaskRow | null> {
  const { rows } = await sql<TaskRow>`
    SELECT * FROM "task"
    WHERE id = ${id} AND "cancelLeaseToken" = ${token} AND "cancelLeaseExpiresAt" > now()
      AND status NOT IN ${TERMINAL_SQL}
    FOR UPDATE`.execute(tx);
  return rows[0] ?? null;
}

/** Remote cancel failed: retry later, backoff measured from now (the failed call's end). False: not ours. */
export async function releaseCancel(id: string, token: string, error: string, attempts: number): Promise<boolean> {
  return one(
    await sql`
      UPDATE "task" SET "cancelLeaseOwner" = NULL, "cancelLeaseToken" = NULL, "cancelLeaseExpiresAt" = NULL,
        "lastCancelError" = ${error.slice(0, 4000)},
        "nextCancelAt" = now() + make_interval(secs => ${secs(backoffMs(Math.max(attempts - 1, 0)))})
      WHERE id = ${id} AND "cancelLeaseToken" = ${token}`.execute(db()),
  );
}
