import { getDb } from "@/lib/db/client";

// The feed's reads of the event log (lib/events/feed.ts serves them): where a
// resuming client starts, one stream's page, and the shared page of an account.

/** Events per read; a full page means there may be more. */
export const REPLAY_PAGE = 500;

/**
 * Log reads since the process started, for tests and the bench: `shared` are the
 * one-per-account reads after a wake-up, `own` the reads of a single stream that
 * is behind them (a replay after reconnect, a gap).
 */
export const feedReads = { shared: 0, own: 0 };

/** Decides where a resuming client starts; `reset` when its cursor predates retention or our log. */
export async function resolveCursor(
  ownerId: string,
  after: bigint | null,
): Promise<{ cursor: bigint; reset: boolean }> {
  const db = getDb();
  const user = await db.user.findUnique({ where: { id: ownerId }, select: { eventSeq: true } });
  const head = user?.eventSeq ?? 0n;
  if (after === null) return { cursor: head, reset: false };
  if (after > head) return { cursor: head, reset: true };
  if (after === head) return { cursor: after, reset: false };
  const oldest = await db.event.findFirst({ where: { ownerId }, orderBy: { seq: "asc" }, select: { seq: true } });
  if (!oldest || oldest.seq > after + 1n) return { cursor: head, reset: true };
  return { cursor: after, reset: false };
}

export interface FeedRow {
  live: boolean;
  seq: bigint | null;
  type: string | null;
  payload: unknown;
}

/**
 * One stream's next page of the log, read in the same statement (one snapshot) as
 * its session check: an event committed after the session was deleted is never
 * returned with `live` still true. Without a session id nothing is checked.
 */
export function readOwnPage(ownerId: string, sessionId: string | null, cursor: bigint): Promise<FeedRow[]> {
  feedReads.own += 1;
  return getDb().$queryRaw<FeedRow[]>`
    SELECT s.live, e.seq, e.type, e.payload
    FROM (SELECT ${sessionId}::text IS NULL
            OR EXISTS (SELECT 1 FROM "session" WHERE id = ${sessionId}::text AND "expiresAt" > now()) AS live) s
    LEFT JOIN LATERAL (
      SELECT seq, type, payload FROM "event"
      WHERE s.live AND "ownerId" = ${ownerId} AND seq > ${cursor}
      ORDER BY seq
      LIMIT ${REPLAY_PAGE}::int
    ) e ON true
    ORDER BY e.seq`;
}

export interface SharedRow {
  live: string[];
  seq: bigint | null;
  type: string | null;
  payload: unknown;
}

/**
 * The account's next page after `head` for all its streams at once, with the
 * sessions among `sessionIds` that are still live — one statement, one snapshot,
 * so the same guarantee as readOwnPage holds for every stream it serves.
 */
export function readSharedPage(ownerId: string, sessionIds: string[], head: bigint): Promise<SharedRow[]> {
  feedReads.shared += 1;
  return getDb().$queryRaw<SharedRow[]>`
    SELECT l.live, e.seq, e.type, e.payload
    FROM (SELECT coalesce(array_agg(id), '{}'::text[]) AS live FROM "session"
          WHERE id = ANY(${sessionIds}::text[]) AND "expiresAt" > now()) l
    LEFT JOIN LATERAL (
      SELECT seq, type, payload FROM "event"
      WHERE "ownerId" = ${ownerId} AND seq > ${head}
      ORDER BY seq
      LIMIT ${REPLAY_PAGE}::int
    ) e ON true
    ORDER BY e.seq`;
}
