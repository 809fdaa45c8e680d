import { describe, expect, it } from "vitest";
import { Prisma } from "@/lib/db/generated/client.ts";
import { db, transaction } from "@/lib/db/kysely";
import { CompiledQuery, type RawBuilder } from "kysely";
import { claimCancelsSql, claimExecutionSql, nextExecutionDueSql } from "@/lib/tasks/sql";
import { claimRunsSql } from "@/lib/runs/sql";
import { claimNotificationSql } from "@/lib/notify/sql";
import { taskHistorySql } from "@/lib/tasks/history";

/**
 * Every hot lookup must be servable by an index: with sequential scans
 * priced out, a plan that still reads a whole table means no index can
 * answer it (the table only grows with every account's history).
 */
async function plan(sql: Prisma.Sql | RawBuilder<unknown>): Promise<string> {
  const { text, values } =
    sql instanceof Prisma.Sql
      ? { text: sql.text, values: sql.values }
      : ((c) => ({ text: c.sql, values: [...c.parameters] }))(sql.compile(db()));
  const explain = CompiledQuery.raw(`EXPLAIN ${text}`, values);
  // EXPLAIN of an UPDATE does not run it; roll back anyway.
  const rolledBack = new Error("rolled back");
  let planText = "";
  await transaction(async (tx) => {
    await tx.executeQuery(CompiledQuery.raw("SET LOCAL enable_seqscan = off"));
    const { rows } = await tx.executeQuery<{ "QUERY PLAN": string }>(explain);
    planText = rows.map((r) => r["QUERY PLAN"]).join("\n");
    throw rolledBack;
  }).catch((err: unknown) => {
    if (err !== rolledBack) throw err;
  });
  return planText;
}

const HOT_TABLES = ["task", "run", "message", "event", "conversation"];

function seqScans(text: string): string[] {
  return [...text.matchAll(/Seq Scan on "?(\w+)"?/g)].map((m) => m[1]).filter((t) => HOT_TABLES.includes(t));
}

const OWNER = "index-test-owner";

describe("hot queries are served by indexes", () => {
  const cases: [string, Prisma.Sql | RawBuilder<unknown>][] = [
    ["task execution claim", claimExecutionSql("w", 4, null)],
    ["task cancel claim", claimCancelsSql("w", 2)],
    ["notification claim", claimNotificationSql("w", 4, 10_000, null)],
    ["run claim", claimRunsSql("w", 4)],
    ["next execution wake-up", nextExecutionDueSql],
    [
      "message idempotency",
      Prisma.sql`SELECT id FROM "message" WHERE "ownerId" = ${OWNER} AND "clientMessageId" = 'x'`,
    ],
    ["task idempotency", Prisma.sql`SELECT id FROM "task" WHERE "ownerId" = ${OWNER} AND "clientRequestId" = 'x'`],
    ["run idempotency", Prisma.sql`SELECT id FROM "run" WHERE "idempotencyKey" = 'x'`],
    [
      "active-task quota",
      Prisma.sql`SELECT count(*) FROM "task" WHERE "ownerId" = ${OWNER} AND status IN ('submitted','queued','running','updating','input_required')`,
    ],
    [
      "task-start rate",
      Prisma.sql`SELECT count(*) FROM "task" WHERE "ownerId" = ${OWNER} AND "createdAt" > now() - interval '60 seconds'`,
    ],
    [
      "message rate",
      Prisma.sql`SELECT count(*) FROM "message" WHERE "ownerId" = ${OWNER} AND kind = 'user' AND NOT hidden AND "createdAt" > now() - interval '60 seconds'`,
    ],
    [
      "queued turns",
      Prisma.sql`SELECT count(*) FROM "run" WHERE "ownerId" = ${OWNER} AND kind = 'chat' AND status IN ('queued','running')`,
    ],
    ["feed replay", Prisma.sql`SELECT * FROM "event" WHERE "ownerId" = ${OWNER} AND seq > 10 ORDER BY seq LIMIT 100`],
    [
      "conversation page before a seq",
      Prisma.sql`SELECT * FROM "message" WHERE "conversationId" = 'c' AND "ownerId" = ${OWNER} AND NOT hidden AND seq < 2147483647 ORDER BY seq DESC LIMIT 51`,
    ],
    ["task history", taskHistorySql(OWNER, "t", null, 101)],
  ];
  for (const [name, sql] of cases) {
    it(name, async () => {
      const text = await plan(sql);
      expect(seqScans(text), text).toEqual([]);
    });
  }
});
