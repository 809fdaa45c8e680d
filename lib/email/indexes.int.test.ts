import { describe, expect, it } from "vitest";
import { CompiledQuery, sql, type RawBuilder } from "kysely";
import { db, transaction } from "@/lib/db/kysely";
import { claimEmailSql } from "./sql";

/**
 * The email loop reads only rows with work (notice_email_due_idx) and held
 * leases (notice_email_lease_idx), and the operator's gauge only dead letters
 * (notice_email_dead_idx): sent notices, which grow forever, are never read.
 */
async function plan(q: RawBuilder<unknown>): Promise<string> {
  const { sql: text, parameters } = q.compile(db());
  // EXPLAIN of an UPDATE does not run it; roll back anyway.
  const rolledBack = new Error("rolled back");
  let planText = "";
  await transaction(async (tx) => {
    await sql`SET LOCAL enable_seqscan = off`.execute(tx);
    const { rows } = await tx.executeQuery<{ "QUERY PLAN": string }>(
      CompiledQuery.raw(`EXPLAIN ${text}`, [...parameters]),
    );
    planText = rows.map((r) => r["QUERY PLAN"]).join("\n");
    throw rolledBack;
  }).catch((err: unknown) => {
    if (err !== rolledBack) throw err;
  });
  return planText;
}

describe("email outbox queries are served by partial indexes", () => {
  it("the claim reads due rows and held leases through their indexes", async () => {
    const text = await plan(claimEmailSql("w", 4, 10_000));
    expect(text).not.toMatch(/Seq Scan on "?notice"?/);
    expect(text).toContain("notice_email_due_idx");
    expect(text).toContain("notice_email_lease_idx");
  });

  it("the gauge counts dead letters without reading sent rows", async () => {
    const text = await plan(sql`SELECT count(*) FROM "notice" WHERE "emailState" = 'dead_letter'`);
    expect(text).toContain("notice_email_dead_idx");
    expect(text).not.toMatch(/Seq Scan on "?notice"?/);
  });
});
