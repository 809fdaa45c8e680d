import { getDb } from "@/lib/db/client";

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
  const rows = await getDb().$queryRaw<{ name: string }[]>`
    INSERT INTO "maintenance_job" AS j (name, "nextRunAt", "lastOwner", "lastStartedAt")
    VALUES (${name}, now() + make_interval(secs => ${everyMs / 1000}), ${owner}, now())
    ON CONFLICT (name) DO UPDATE
      SET "nextRunAt" = now() + make_interval(secs => ${everyMs / 1000}), "lastOwner" = EXCLUDED."lastOwner", "lastStartedAt" = now()
      WHERE j."nextRunAt" <= now()
    RETURNING name`;
  return rows.length === 1;
}

export async function finishJob(name: string, owner: string, result: unknown): Promise<void> {
  await getDb().$executeRaw`
    UPDATE "maintenance_job" SET "lastFinishedAt" = now(), "lastResult" = ${JSON.stringify(result)}::jsonb
    WHERE name = ${name} AND "lastOwner" = ${owner}`;
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
  return getDb().$executeRaw`
    WITH head AS (
      SELECT "ownerId", seq, "createdAt" FROM "event" ORDER BY id LIMIT ${RETENTION_BATCH}
    ), upto AS (
      SELECT "ownerId", max(seq) AS seq FROM head
      WHERE "createdAt" < now() - make_interval(days => ${days})
      GROUP BY "ownerId"
    )
    DELETE FROM "event" e USING upto WHERE e."ownerId" = upto."ownerId" AND e.seq <= upto.seq`;
}

export async function deleteDeadHeartbeats(): Promise<number> {
  return getDb().$executeRaw`DELETE FROM "worker_heartbeat" WHERE "lastBeatAt" < now() - interval '1 day'`;
}

export async function deleteExpiredSessions(): Promise<number> {
  return getDb().$executeRaw`
    DELETE FROM "session" WHERE id IN (
      SELECT id FROM "session" WHERE "expiresAt" < now() - interval '1 day' LIMIT ${RETENTION_BATCH})`;
}

export async function deleteExpiredVerifications(): Promise<number> {
  return getDb().$executeRaw`
    DELETE FROM "verification" WHERE id IN (
      SELECT id FROM "verification" WHERE "expiresAt" < now() - interval '1 day' LIMIT ${RETENTION_BATCH})`;
}
