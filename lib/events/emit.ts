import type { LoggedFeedEvent, RunDelta } from "@/lib/contract/shapes";
import { DELTAS_CHANNEL, EVENTS_CHANNEL, MAX_NOTIFY_BYTES, WORK_CHANNEL } from "./channels";
import { getDb, PREPARED, type Tx } from "@/lib/db/client";

/**
 * Appends a durable event to the account's log inside the caller's transaction
 * (or on its own: the one statement is atomic, e.g. a run announcing it started).
 *
 * The seq comes from bumping user.eventSeq, which row-locks the account until
 * commit: a second writer for the same account waits, so events commit in seq
 * order and a reader resuming after N can never skip a seq that commits later.
 *
 * One statement (bump, insert, NOTIFY): a task's path emits about ten events, and
 * three round trips each were a fifth of every statement a task cost. The time is
 * the moment of the write (clock_timestamp), not the transaction's start: a task's
 * timeline interleaves events with rows written later in the same transaction.
 */
export async function emitEvent(
  tx: Tx,
  ownerId: string,
  event: LoggedFeedEvent,
  refs: { conversationId?: string | null; taskId?: string | null } = {},
  /** Loops to wake when the transaction commits (wakeWorkers), in the same statement. */
  wake: readonly string[] = [],
): Promise<bigint> {
  // pg_notify returns void, which the driver cannot read: it runs in laterals that yield no column read.
  // The wake-ups are counted (one row whatever their number) so an empty list keeps the event's row.
  const [{ seq }] = await tx.$queryRaw<{ seq: bigint }[]>`${PREPARED}
    WITH bumped AS (UPDATE "user" SET "eventSeq" = "eventSeq" + 1 WHERE id = ${ownerId} RETURNING "eventSeq"),
    inserted AS (
      INSERT INTO "event" ("ownerId", seq, type, "conversationId", "taskId", payload, "createdAt")
      SELECT ${ownerId}, bumped."eventSeq", ${event.type}, ${refs.conversationId ?? null}, ${refs.taskId ?? null},
             ${JSON.stringify(event.data)}::jsonb, clock_timestamp()
      FROM bumped
      RETURNING "ownerId", seq)
    SELECT inserted.seq FROM inserted
    CROSS JOIN LATERAL (SELECT pg_notify(${EVENTS_CHANNEL}, json_build_object('o', inserted."ownerId", 's', inserted.seq::text)::text)) notified
    CROSS JOIN LATERAL (SELECT count(*) FROM (SELECT pg_notify(${WORK_CHANNEL}, w) FROM unnest(${[...wake]}::text[]) w) n) woken`;
  return seq;
}

/** Tells idle workers there is due work for a loop. Transactional when given a tx. */
export async function wakeWorkers(tx: Tx | null, loop: string): Promise<void> {
  const q = tx ?? getDb();
  await q.$executeRaw`SELECT pg_notify(${WORK_CHANNEL}, ${loop})`;
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
  await getDb().$executeRaw`SELECT pg_notify(${DELTAS_CHANNEL}, ${payload})`;
}
