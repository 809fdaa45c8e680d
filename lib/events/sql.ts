import { db, prepared, type Executor, type Tx } from "@/lib/db/kysely";
import { sql } from "kysely";
import { DELTAS_CHANNEL, EVENTS_CHANNEL, SESSIONS_CHANNEL, WORK_CHANNEL } from "./channels";
import type { LoggedFeedEvent } from "@/lib/contract/shapes";

/** An event waiting for its transaction's one write (emitEvent, lib/events/emit.ts). */
export interface PendingEvent {
  ownerId: string;
  event: LoggedFeedEvent;
  refs: { conversationId?: string | null; taskId?: string | null };
  wake: readonly string[];
}

/** The writes of the event log and of the columns of the user row this folder keeps (eventSeq, presenceAt). */

// One statement (bump, insert, NOTIFY) for any number of events: a task's path emits about ten, and three
// round trips each were a fifth of every statement a task cost. pg_notify returns void: it runs in
// laterals that yield no column read. The wake-ups are counted (one row whatever
// their number) so an empty list keeps the event's row.
export async function writeEvents(tx: Executor, ownerId: string, events: PendingEvent[]): Promise<void> {
  const wake = [...new Set(events.flatMap((e) => e.wake))];
  // Seqs n-k+1 … n in the order emitted; one NOTIFY with the last seq (a wake-up reads the log past its cursor).
  await sql`${prepared}
    WITH e AS (
      SELECT * FROM unnest(${events.map((e) => e.event.type)}::text[], ${events.map((e) => e.refs.conversationId ?? null)}::text[],
                           ${events.map((e) => e.refs.taskId ?? null)}::text[], ${events.map((e) => JSON.stringify(e.event.data))}::text[])
        WITH ORDINALITY AS e(type, conv, task, payload, ord)),
    bumped AS (UPDATE "user" SET "eventSeq" = "eventSeq" + (SELECT count(*) FROM e) WHERE id = ${ownerId} RETURNING "eventSeq"),
    inserted AS (
      INSERT INTO "event" ("ownerId", seq, type, "conversationId", "taskId", payload, "createdAt")
      SELECT ${ownerId}, bumped."eventSeq" - (SELECT count(*) FROM e) + e.ord, e.type, e.conv, e.task, e.payload::jsonb, clock_timestamp()
      FROM bumped, e
      RETURNING "ownerId", seq)
    SELECT last.seq FROM (SELECT * FROM inserted ORDER BY seq DESC LIMIT 1) last
    CROSS JOIN LATERAL (SELECT pg_notify(${EVENTS_CHANNEL}, json_build_object('o', last."ownerId", 's', last.seq::text)::text)) notified
    CROSS JOIN LATERAL (SELECT count(*) FROM (SELECT pg_notify(${WORK_CHANNEL}, w) FROM unnest(${wake}::text[]) w) n) woken`.execute(
    tx,
  );
}

/** user.presenceAt of the given accounts; with `skipLocked` a row locked right now is left for the next touch. */
export async function touchPresenceAt(ids: string[], skipLocked: boolean): Promise<void> {
  const touch = db()
    .updateTable("user")
    .set({ presenceAt: sql<Date>`now()` });
  if (skipLocked) {
    await touch
      .where("id", "in", (eb) =>
        eb
          .selectFrom("user")
          .select("id")
          .where("id", "=", eb.fn.any(sql<string[]>`${ids}::text[]`))
          .forUpdate()
          .skipLocked(),
      )
      .execute();
  } else {
    await touch.where("id", "=", (eb) => eb.fn.any(sql<string[]>`${ids}::text[]`)).execute();
  }
}

/** The account's event log, on its deletion. */
export async function deleteOwnerEvents(tx: Tx, ownerId: string): Promise<void> {
  await tx.deleteFrom("event").where("ownerId", "=", ownerId).execute();
}

/** Wakes idle workers for a loop (wakeWorkers); in a transaction, Postgres delivers it at commit. */
export async function notifyWork(on: Executor, loop: string): Promise<void> {
  await sql`SELECT pg_notify(${WORK_CHANNEL}, ${loop})`.execute(on);
}

/** One streamed-text NOTIFY (publishDelta), its payload already within MAX_NOTIFY_BYTES. */
export async function notifyDelta(payload: string): Promise<void> {
  await sql`SELECT pg_notify(${DELTAS_CHANNEL}, ${payload})`.execute(db());
}

/** The ids among `ids` whose session row exists and has not expired (one primary-key lookup). */
export async function selectLiveSessionIds(ids: readonly string[]): Promise<{ id: string }[]> {
  return db()
    .selectFrom("session")
    .select("id")
    .where((eb) => eb("id", "=", eb.fn.any(sql<string[]>`${[...ids]}::text[]`)))
    .where("expiresAt", ">", sql<Date>`now()`)
    .execute();
}

/** Tells the account's feeds a session ended (notifySessionEnded), so they re-check at once. */
export async function notifyEndedSession(userId: string): Promise<void> {
  await sql`SELECT pg_notify(${SESSIONS_CHANNEL}, ${JSON.stringify({ o: userId })})`.execute(db());
}
