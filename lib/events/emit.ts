import type { LoggedFeedEvent, RunDelta } from "@/lib/contract/shapes";
import { MAX_NOTIFY_BYTES } from "./channels";
import { db, transaction, type Executor, type Tx } from "@/lib/db/kysely";
import { notifyDelta, notifyWork, writeEvents, type PendingEvent } from "./sql";

/** Events of a transaction opened by transactionWithEvents, written together before it commits. */
const batches = new WeakMap<object, PendingEvent[]>();

/** The transaction `transactionWithEvents` hands its body: a plain Kysely `Tx` whose events are batched. */
export type EventTx = Tx;

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
  tx: Executor,
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
 * A run that Postgres aborts (a deadlock) is run again by transaction's retry policy: each run has its own batch,
 * so the events of an aborted run are never written.
 */
export async function transactionWithEvents<T>(fn: (tx: EventTx) => Promise<T>): Promise<T> {
  return transaction(async (tx) => {
    const batch: PendingEvent[] = [];
    batches.set(tx, batch);
    try {
      const result = await fn(tx);
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

/** Tells idle workers there is due work for a loop. Transactional when given a tx. */
export async function wakeWorkers(tx: Executor | null, loop: string): Promise<void> {
  await notifyWork(tx ?? db(), loop);
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
  await notifyDelta(payload);
}
