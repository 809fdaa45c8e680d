import type { LoggedFeedEvent, RunDelta } from "@/lib/contract/shapes";
import { DELTAS_CHANNEL, EVENTS_CHANNEL, MAX_NOTIFY_BYTES, WORK_CHANNEL } from "./channels";
import { PREPARED, type SqlTx } from "@/lib/db/client";
import { Prisma } from "@/lib/db/generated/client.ts";
import { db, isKysely, legacySql, prepared, transaction, type Executor, type Tx } from "@/lib/db/kysely";
import { sql } from "kysely";

interface PendingEvent {
  ownerId: string;
  event: LoggedFeedEvent;
  refs: { conversationId?: string | null; taskId?: string | null };
  wake: readonly string[];
}

/** Events of a transaction opened by transactionWithEvents, written together before it commits. */
const batches = new WeakMap<object, PendingEvent[]>();

/**
 * The transaction `transactionWithEvents` hands its body: a Kysely `Tx`.
 * @deprecated The `SqlTx` half (`$queryRaw`, `$executeRaw` on the same connection) is there only while the functions
 * its bodies call move to Kysely; then this is `Tx`.
 */
export type EventTx = Tx & SqlTx;

/**
 * Appends a durable event to the account's log inside the caller's transaction
 * (or on its own: the one statement is atomic, e.g. a run announcing it started).
 * In a transaction opened by `transactionWithEvents` it is written with the
 * transaction's other events, in order, just before the commit.
 *
 * The seq comes from bumping user.eventSeq, which row-locks the account until
 * commit: a second writer for the same account waits, so events commit in seq
 * order and a reader resuming after N can never skip a seq that commits later.
 *
 * The time is the moment of the write (clock_timestamp), not the transaction's
 * start: a task's timeline interleaves events with rows written in the same transaction.
 */
export async function emitEvent(
  tx: Executor | SqlTx,
  ownerId: string,
  event: LoggedFeedEvent,
  refs: { conversationId?: string | null; taskId?: string | null } = {},
  /** Loops to wake when the transaction commits (wakeWorkers), in the same statement. */
  wake: readonly string[] = [],
): Promise<void> {
  const batch = batches.get(tx);
  if (batch) batch.push({ ownerId, event, refs, wake });
  else await writeEvents(tx, ownerId, [{ ownerId, event, refs, wake }]);
}

/**
 * A transaction whose feed events are written in one statement per account at
 * its end (a task's terminal write emits five: four round trips fewer). The
 * account's row is then locked only for the last moment of the transaction, and
 * after the conversation's, the order every other writer takes them in.
 * A run that Postgres aborts (a deadlock) is run again by sqlTransaction's retry policy: each run has its own batch,
 * so the events of an aborted run are never written.
 */
export async function transactionWithEvents<T>(fn: (tx: EventTx) => Promise<T>): Promise<T> {
  return transaction(async (tx) => {
    const batch: PendingEvent[] = [];
    batches.set(tx, batch);
    try {
      const result = await fn(Object.assign(tx, legacySql(tx)));
      const owners = [...new Set(batch.map((e) => e.ownerId))];
      for (const owner of owners)
        await writeEvents(
          tx,
          owner,
          batch.filter((e) => e.ownerId === owner),
        );
      return result;
    } finally {
      batches.delete(tx);
    }
  });
}

// One statement (bump, insert, NOTIFY) for any number of events: a task's path emits about ten, and three
// round trips each were a fifth of every statement a task cost. pg_notify returns void, which Prisma's driver
// cannot read: it runs in laterals that yield no column read. The wake-ups are counted (one row whatever
// their number) so an empty list keeps the event's row.
async function writeEvents(tx: Executor | SqlTx, ownerId: string, events: PendingEvent[]): Promise<void> {
  if (isKysely(tx)) await writeEventsSql(sql, prepared, ownerId, events).execute(tx);
  else await tx.$queryRaw(writeEventsSql(Prisma.sql, PREPARED, ownerId, events));
}

// Written once for both clients (the tag is Kysely's `sql` or Prisma's) while callers still hand in a `SqlTx`.
function writeEventsSql<Q>(
  tag: (strings: TemplateStringsArray, ...values: never[]) => Q,
  mark: unknown,
  ownerId: string,
  events: PendingEvent[],
): Q {
  const wake = [...new Set(events.flatMap((e) => e.wake))];
  const q = tag as (strings: TemplateStringsArray, ...values: unknown[]) => Q;
  // Seqs n-k+1 … n in the order emitted; one NOTIFY with the last seq (a wake-up reads the log past its cursor).
  return q`${mark}
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
    CROSS JOIN LATERAL (SELECT count(*) FROM (SELECT pg_notify(${WORK_CHANNEL}, w) FROM unnest(${wake}::text[]) w) n) woken`;
}

/** Tells idle workers there is due work for a loop. Transactional when given a tx. */
export async function wakeWorkers(tx: Executor | SqlTx | null, loop: string): Promise<void> {
  if (tx && !isKysely(tx)) await tx.$executeRaw`SELECT pg_notify(${WORK_CHANNEL}, ${loop})`;
  else await sql`SELECT pg_notify(${WORK_CHANNEL}, ${loop})`.execute(tx ?? db());
}

/** Streamed text is ephemeral: no seq, may be dropped; the stored message is the truth. */
export async function publishDelta(ownerId: string, delta: RunDelta): Promise<void> {
  const payload = JSON.stringify({ ...delta, o: ownerId });
  if (Buffer.byteLength(payload) > MAX_NOTIFY_BYTES) {
    // Too large for one NOTIFY: split rather than drop, keeping offsets exact.
    const half = Math.floor(delta.delta.length / 2);
    await publishDelta(ownerId, { ...delta, delta: delta.delta.slice(0, half) });
    await publishDelta(ownerId, { ...delta, delta: delta.delta.slice(half), offset: delta.offset + half });
    return;
  }
  await sql`SELECT pg_notify(${DELTAS_CHANNEL}, ${payload})`.execute(db());
}
