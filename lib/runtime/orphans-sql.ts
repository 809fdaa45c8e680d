import { db } from "@/lib/db/kysely";
import { sql } from "kysely";

/**
 * SQL of the orphan reaper (lib/runtime/reap-orphans.ts). A row is a remote
 * task the remote lists and no task row tracks:
 *
 *   (none) ──seen untracked──▶ seen ──untracked past grace, remote cancel accepted──▶ cancelled
 *     seen ──tracked after all (a hand-off committed late), or no longer active──▶ (deleted)
 *
 * `cancelled` is final and counted once (herald_remote_orphans_cancelled_total in
 * /api/metrics); the grace period is measured on the database clock from the
 * first sighting, never from the remote's own timestamps (another machine's clock).
 */

/** Which of `refs` a task row of `driver` holds as its handle. */
export async function trackedRefs(driver: string, refs: string[]): Promise<Set<string>> {
  if (refs.length === 0) return new Set();
  const rows = await db()
    .selectFrom("task")
    .select("remoteRef")
    .where("driver", "=", driver)
    .where("remoteRef", "=", sql<string>`ANY(${refs}::text[])`)
    .execute();
  return new Set(rows.flatMap((r) => (r.remoteRef === null ? [] : [r.remoteRef])));
}

/**
 * Records first sightings and forgets pending rows that are no longer an
 * untracked active task (a hand-off committed late, or the task ended by
 * itself); returns the refs due for cancelling.
 */
export async function sightOrphans(driver: string, untracked: string[], graceMs: number): Promise<string[]> {
  await db()
    .deleteFrom("remote_orphan")
    .where("driver", "=", driver)
    .where("cancelledAt", "is", null)
    .where(sql<boolean>`NOT ("remoteRef" = ANY(${untracked}::text[]))`)
    .execute();
  if (untracked.length === 0) return [];
  await sql`
    INSERT INTO "remote_orphan" (driver, "remoteRef")
    SELECT ${driver}, r FROM unnest(${untracked}::text[]) AS r
    ON CONFLICT DO NOTHING`.execute(db());
  const due = await db()
    .selectFrom("remote_orphan")
    .select("remoteRef")
    .where("driver", "=", driver)
    .where("remoteRef", "=", sql<string>`ANY(${untracked}::text[])`)
    .where("cancelledAt", "is", null)
    .where("firstSeenAt", "<=", sql<Date>`now() - make_interval(secs => ${graceMs / 1000})`)
    .execute();
  return due.map((r) => r.remoteRef);
}

/**
 * Marks one orphan cancelled unless a task row started tracking it meanwhile;
 * false when another worker's reaper counted it first.
 */
export async function markOrphanCancelled(driver: string, remoteRef: string): Promise<boolean> {
  const r = await db()
    .updateTable("remote_orphan")
    .set((eb) => ({ cancelledAt: sql<Date>`now()`, attempts: eb("attempts", "+", 1) }))
    .where("driver", "=", driver)
    .where("remoteRef", "=", remoteRef)
    .where("cancelledAt", "is", null)
    .executeTakeFirst();
  return r.numUpdatedRows === 1n;
}

export async function noteOrphanAttempt(driver: string, remoteRef: string): Promise<void> {
  await db()
    .updateTable("remote_orphan")
    .set((eb) => ({ attempts: eb("attempts", "+", 1) }))
    .where("driver", "=", driver)
    .where("remoteRef", "=", remoteRef)
    .execute();
}
