import { getDb } from "@/lib/db/client";
import type { DB } from "@/lib/db/generated/kysely.ts";
import { db } from "@/lib/db/kysely";
import { sql, type Selectable } from "kysely";

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

type LoggedEvent = Pick<Selectable<DB["event"]>, "seq" | "type" | "payload">;
/** An event of the page, or all nulls when the page is empty (the left join keeps the session row). */
type PageEvent = { [K in keyof LoggedEvent]: LoggedEvent[K] | null };

export type FeedRow = PageEvent & { live: boolean };

/**
 * One stream's next page of the log, read in the same statement (one snapshot) as
 * its session check: an event committed after the session was deleted is never
 * returned with `live` still true. Without a session id nothing is checked.
 */
export async function readOwnPage(ownerId: string, sessionId: string | null, cursor: bigint): Promise<FeedRow[]> {
  feedReads.own += 1;
  const { rows } = await sql<FeedRow>`
    SELECT s.live, e.seq, e.type, e.payload
    FROM (SELECT ${sessionId}::text IS NULL
            OR EXISTS (SELECT 1 FROM "session" WHERE id = ${sessionId}::text AND "expiresAt" > now()) AS live) s
    LEFT JOIN LATERAL (
      SELECT seq, type, payload FROM "event"
      WHERE s.live AND "ownerId" = ${ownerId} AND seq > ${cursor}
      ORDER BY seq
      LIMIT ${REPLAY_PAGE}::int
    ) e ON true
    ORDER BY e.seq`.execute(db());
  return rows;
}

/** `live`: the ids among the streams' sessions that still exist. */
export type SharedRow = PageEvent & { live: string[] };

/**
 * The account's next page after `head` for all its streams at once, with the
 * sessions among `sessionIds` that are still live — one statement, one snapshot,
 * so the same guarantee as readOwnPage holds for every stream it serves.
 */
export async function readSharedPage(ownerId: string, sessionIds: string[], head: bigint): Promise<SharedRow[]> {
  feedReads.shared += 1;
  const { rows } = await sql<SharedRow>`
    SELECT l.live, e.seq, e.type, e.payload
    FROM (SELECT coalesce(array_agg(id), '{}'::text[]) AS live FROM "session"
          WHERE id = ANY(${sessionIds}::text[]) AND "expiresAt" > now()) l
    LEFT JOIN LATERAL (
      SELECT seq, type, payload FROM "event"
      WHERE "ownerId" = ${ownerId} AND seq > ${head}
      ORDER BY seq
      LIMIT ${REPLAY_PAGE}::int
    ) e ON true
    ORDER BY e.seq`.execute(db());
  return rows;
}
