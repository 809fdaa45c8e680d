import type { DB } from "@/lib/db/generated/kysely.ts";
import type { PublicMessage } from "@/lib/contract/shapes";
import { db, type Tx } from "@/lib/db/kysely";
import { sql, type Insertable, type Selectable } from "kysely";

/**
 * The Agent Protocol's own writes in a transaction (the webhook outbox's are in ./webhook-sql.ts): a run is an ap_run
 * row beside the task it drives. A thread is a conversation row with AP metadata, written by lib/chat/sql.ts.
 */

export type ApRunRow = Selectable<DB["ap_run"]>;

/** A run, in the transaction that also writes its webhook row; its createdAt orders runs of one task. */
export async function insertApRun(tx: Tx, run: Insertable<DB["ap_run"]>): Promise<ApRunRow> {
  return tx.insertInto("ap_run").values(run).returningAll().executeTakeFirstOrThrow();
}

/** The account's Agent Protocol runs, on its deletion. */
export async function deleteOwnerApRuns(tx: Tx, ownerId: string): Promise<void> {
  await tx.deleteFrom("ap_run").where("ownerId", "=", ownerId).execute();
}

/**
 * The account's live threads whose metadata contains `metadata` (jsonb @>), optionally among `ids`, newest first:
 * a supervisor looks its own idempotency key up this way before creating a thread again after a crash.
 */
export async function selectThreads(
  ownerId: string,
  q: { metadata?: Record<string, unknown>; ids?: string[]; limit?: number; offset?: number },
) {
  return db()
    .selectFrom("conversation")
    .select(["id", "createdAt", "updatedAt", "apMetadata"])
    .where("ownerId", "=", ownerId)
    .where("deletedAt", "is", null)
    .where("apMetadata", "is not", null)
    .where(sql<boolean>`"apMetadata" @> ${JSON.stringify(q.metadata ?? {})}::jsonb`)
    .$if(q.ids !== undefined, (qb) => qb.where((eb) => eb("id", "=", eb.fn.any(sql<string[]>`${q.ids}::text[]`))))
    .orderBy("createdAt", "desc")
    .orderBy("id", "desc")
    .limit(q.limit ?? 10)
    .offset(q.offset ?? 0)
    .execute();
}

/** A log event of a run's task; its payload is the LoggedFeedEvent's data that emitEvent wrote. */
export type RunLogRow = Pick<Selectable<DB["event"]>, "seq" | "type"> & { payload: { message?: PublicMessage } };

/**
 * A page of the task's log events after `cursor` (and, when `since` is given, written from then on: the events of
 * this run, not of the task's earlier runs), in seq order: what a run stream replays and follows.
 */
export async function runLogPage(
  ownerId: string,
  taskId: string,
  cursor: bigint,
  since: Date | null,
  page: number,
): Promise<RunLogRow[]> {
  const { rows } = await sql<RunLogRow>`
    SELECT seq, type, payload FROM "event"
    WHERE "ownerId" = ${ownerId} AND "taskId" = ${taskId} AND seq > ${cursor}
      AND (${since}::timestamptz IS NULL OR "createdAt" >= ${since}::timestamptz)
    ORDER BY seq LIMIT ${page}::int`.execute(db());
  return rows;
}
