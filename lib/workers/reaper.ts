import { env } from "@/lib/config/env";
import { getDb } from "@/lib/db/client";

/**
 * Housekeeping: forget workers that stopped beating long ago and drop feed
 * events past retention (a client resuming from before that gets `reset` and
 * reloads snapshots). One worker at a time, through a transaction-scoped
 * advisory lock; work is in bounded batches so it never holds locks for long.
 */
export const EVENT_RETENTION_DAYS = env("HERALD_EVENT_RETENTION_DAYS");
const REAPER_LOCK = 0x68726c64; // "hrld"
const BATCH = 5000;

export async function reapOnce(): Promise<{ events: number; heartbeats: number } | null> {
  return getDb().$transaction(async (tx) => {
    const [{ locked }] = await tx.$queryRaw<{ locked: boolean }[]>`SELECT pg_try_advisory_xact_lock(${REAPER_LOCK}) AS locked`;
    if (!locked) return null;
    const events = await tx.$executeRaw`
      DELETE FROM "event" WHERE id IN (
        SELECT id FROM "event" WHERE "createdAt" < now() - make_interval(days => ${EVENT_RETENTION_DAYS})
        ORDER BY id LIMIT ${BATCH})`; // oldest first: each account's log stays a suffix, without holes
    const heartbeats = await tx.$executeRaw`
      DELETE FROM "worker_heartbeat" WHERE "lastBeatAt" < now() - interval '1 day'`;
    return { events, heartbeats };
  });
}
