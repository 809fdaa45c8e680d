import type { Tx } from "@/lib/db/kysely";
import { sql } from "kysely";

/** The transaction's database clock: what a task's deadline and budget are compared with. */
export async function transactionNow(tx: Tx): Promise<Date> {
  const { rows } = await sql<{ now: Date }>`SELECT now() AS now`.execute(tx);
  return rows[0].now;
}
