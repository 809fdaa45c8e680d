import { describe, expect, it } from "vitest";
import { Prisma } from "@/lib/db/generated/client.ts";
import { getDb } from "@/lib/db/client";
import { claimEmailSql } from "./sql";

/**
 * The email loop reads only rows with work (notice_email_due_idx) and held
 * leases (notice_email_lease_idx), and the operator's gauge only dead letters
 * (notice_email_dead_idx): sent notices, which grow forever, are never read.
 */
async function plan(sql: Prisma.Sql): Promise<string> {
  return getDb().$transaction(async (tx) => {
    await tx.$executeRawUnsafe("SET LOCAL enable_seqscan = off");
    const rows = await tx.$queryRaw<{ "QUERY PLAN": string }[]>`EXPLAIN ${sql}`;
    return rows.map((r) => r["QUERY PLAN"]).join("\n");
  });
}

describe("email outbox queries are served by partial indexes", () => {
  it("the claim reads due rows and held leases through their indexes", async () => {
    const text = await plan(claimEmailSql("w", 4, 10_000));
    expect(text).not.toMatch(/Seq Scan on "?notice"?/);
    expect(text).toContain("notice_email_due_idx");
    expect(text).toContain("notice_email_lease_idx");
  });

  it("the gauge counts dead letters without reading sent rows", async () => {
    const text = await plan(Prisma.sql`SELECT count(*) FROM "notice" WHERE "emailState" = 'dead_letter'`);
    expect(text).toContain("notice_email_dead_idx");
    expect(text).not.toMatch(/Seq Scan on "?notice"?/);
  });
});
