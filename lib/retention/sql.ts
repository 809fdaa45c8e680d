import { db, jsonb } from "@/lib/db/kysely";
import { sql } from "kysely";

/**
 * Every statement of the retention job (lib/retention/job.ts).
 *
 * What is deleted, and why only that:
 *   event              older than HERALD_EVENT_RETENTION_DAYS, per account as a prefix of its log (below)
 *   worker_heartbeat   silent for a day (a dead or long-stopped worker)
 *   session            expired a day ago (it can no longer authenticate anything)
 *   verification       expired a day ago (sign-in and reset tokens nobody can redeem)
 * What is kept, whatever its age: conversations, messages, tasks and their steps,
 * publications and notices (the user's record, shown in the conversation and the
 * task timeline) and runs (a chat run is the idempotency record of its message —
 * a resubmitted clientMessageId answers with it — and runs carry the token usage
 * and cost of every model request).
 *
 * Schedule (maintenance_job row, one per job):
 *   from               event                              to                        guard
 *   (none)             first claim by any worker          nextRunAt = now()+every   INSERT … ON CONFLICT
 *   nextRunAt ≤ now()  claim                              nextRunAt = now()+every   UPDATE … WHERE nextRunAt ≤ now()
 *   claimed            batches done                       lastFinishedAt, result    lastOwner = me
 * Only the claim that moved nextRunAt runs the job: one worker per interval.
 */

/** Rows per statement: each batch is a short transaction of its own, never a long lock. */
export const RETENTION_BATCH = 5_000;

/** Moves the job's nextRunAt forward if it is due; true only for the one caller that moved it. */
export async function claimJob(name: string, owner: string, everyMs: number): Promise<boolean> {
  const next = sql<Date>`now() + make_interval(secs => ${everyMs / 1000})`;
  const rows = await db()
    .insertInto("maintenance_job")
    .values({ name, nextRunAt: next, lastOwner: owner, lastStartedAt: sql<Date>`now()` })
    .onConflict((oc) =>
      oc
        .column("name")
        .doUpdateSet((eb) => ({
          nextRunAt: next,
          lastOwner: eb.ref("excluded.lastOwner"),
          lastStartedAt: sql<Date>`now()`,
        }))
        .where("maintenance_job.nextRunAt", "<=", sql<Date>`now()`),
    )
    .returning("name")
    .execute();
  return rows.length === 1;
}

export async function finishJob(name: string, owner: string, result: unknown): Promise<void> {
  await db()
    .updateTable("maintenance_job")
    .set({ lastFinishedAt: sql<Date>`now()`, lastResult: jsonb(result) })
    .where("name", "=", name)
    .where("lastOwner", "=", owner)
    .execute();
}

/**
 * One batch of old feed events. The oldest rows by id are read from the primary
 * key (no scan of the table), and for each account among them everything up to
 * its newest expired seq goes, so each account's log stays a suffix with no hole:
 * a client reading from a cursor inside the log never skips an event, and one
 * whose cursor fell before the log's start is told `reset` (lib/events/feed-sql.ts).
 * Per account, id order is seq order (both are taken under the account's row
 * lock), but createdAt is transaction start, so a row a few ms inside the
 * window may go with the expired ones just before it — never one after.
 */
export async function deleteOldEvents(days: number): Promise<number> {
  const r = await sql`
    WITH head AS (
      SELECT "ownerId", seq, "createdAt" FROM "event" ORDER BY id LIMIT ${RETENTION_BATCH}
    ), upto AS (
      SELECT "ownerId", max(seq) AS seq FROM head
      WHERE "createdAt" < now() - make_interval(days => ${days})
      GROUP BY "ownerId"
    )
    DELETE FROM "event" e USING upto WHERE e."ownerId" = upto."ownerId" AND e.seq <= upto.seq`.execute(db());
  return Number(r.numAffectedRows ?? 0);
}

export async function deleteDeadHeartbeats(): Promise<number> {
  const r = await db()
    .deleteFrom("worker_heartbeat")
    .where("lastBeatAt", "<", sql<Date>`now() - interval '1 day'`)
    .executeTakeFirst();
  return Number(r.numDeletedRows);
}

/** At most one batch of rows of a better-auth table that expired a day ago. */
async function deleteExpired(table: "session" | "verification"): Promise<number> {
  const r = await db()
    .deleteFrom(table)
    .where("id", "in", (eb) =>
      eb
        .selectFrom(table)
        .select("id")
        .where("expiresAt", "<", sql<Date>`now() - interval '1 day'`)
        .limit(RETENTION_BATCH),
    )
    .executeTakeFirst();
  return Number(r.numDeletedRows);
}

export const deleteExpiredSessions = () => deleteExpired("session");

export const deleteExpiredVerifications = () => deleteExpired("verification");
