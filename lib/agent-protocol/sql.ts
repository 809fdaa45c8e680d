import type { DB } from "@/lib/db/generated/kysely.ts";
import type { Tx } from "@/lib/db/kysely";
import type { Insertable, Selectable } from "kysely";

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
