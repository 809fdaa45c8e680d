import { CompiledQuery, type Compilable, type RawBuilder } from "kysely";
import { db, transaction } from "@/lib/db/kysely";

/** A statement to EXPLAIN: a Kysely template or builder. */
export type Explainable = RawBuilder<unknown> | Compilable<unknown>;

function compiled(q: Explainable): { text: string; values: readonly unknown[] } {
  const c = "isRawBuilder" in q ? q.compile(db()) : q.compile();
  return { text: c.sql, values: c.parameters };
}

/**
 * The plan Postgres picks for `q` with sequential scans priced out: a plan that still reads a whole table means no
 * index can answer it. EXPLAIN of a write does not run it; the transaction is rolled back anyway.
 */
export async function planWithoutSeqScans(q: Explainable): Promise<string> {
  const { text, values } = compiled(q);
  const rolledBack = new Error("rolled back");
  let plan = "";
  await transaction(async (tx) => {
    await tx.executeQuery(CompiledQuery.raw("SET LOCAL enable_seqscan = off"));
    const { rows } = await tx.executeQuery<{ "QUERY PLAN": string }>(CompiledQuery.raw(`EXPLAIN ${text}`, [...values]));
    plan = rows.map((r) => r["QUERY PLAN"]).join("\n");
    throw rolledBack;
  }).catch((err: unknown) => {
    if (err !== rolledBack) throw err;
  });
  return plan;
}
