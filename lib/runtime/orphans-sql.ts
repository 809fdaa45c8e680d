import { getDb } from "@/lib/db/client";

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
  const rows = await getDb().$queryRaw<{ remoteRef: string }[]>`
    SELECT "remoteRef" FROM "task" WHERE driver = ${driver} AND "remoteRef" = ANY(${refs}::text[])`;
  return new Set(rows.map((r) => r.remoteRef));
}

/**
 * Records first sightings and forgets pending rows that are no longer an
 * untracked active task (a hand-off committed late, or the task ended by
 * itself); returns the refs due for cancelling.
 */
export async function sightOrphans(driver: string, untracked: string[], graceMs: number): Promise<string[]> {
  await getDb().$executeRaw`
    DELETE FROM "remote_orphan"
    WHERE driver = ${driver} AND "cancelledAt" IS NULL AND NOT ("remoteRef" = ANY(${untracked}::text[]))`;
  if (untracked.length === 0) return [];
  await getDb().$executeRaw`
    INSERT INTO "remote_orphan" (driver, "remoteRef")
    SELECT ${driver}, r FROM unnest(${untracked}::text[]) AS r
    ON CONFLICT DO NOTHING`;
  const due = await getDb().$queryRaw<{ remoteRef: string }[]>`
    SELECT "remoteRef" FROM "remote_orphan"
    WHERE driver = ${driver} AND "remoteRef" = ANY(${untracked}::text[]) AND "cancelledAt" IS NULL
      AND "firstSeenAt" <= now() - make_interval(secs => ${graceMs / 1000})`;
  return due.map((r) => r.remoteRef);
}

/**
 * Marks one orphan cancelled unless a task row started tracking it meanwhile;
 * false when another worker's reaper counted it first.
 */
export async function markOrphanCancelled(driver: string, remoteRef: string): Promise<boolean> {
  const n = await getDb().$executeRaw`
    UPDATE "remote_orphan" SET "cancelledAt" = now(), attempts = attempts + 1
    WHERE driver = ${driver} AND "remoteRef" = ${remoteRef} AND "cancelledAt" IS NULL`;
  return n === 1;
}

export async function noteOrphanAttempt(driver: string, remoteRef: string): Promise<void> {
  await getDb().$executeRaw`
    UPDATE "remote_orphan" SET attempts = attempts + 1 WHERE driver = ${driver} AND "remoteRef" = ${remoteRef}`;
}
