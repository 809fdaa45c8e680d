import { describe, expect, it } from "vitest";
import { sql } from "kysely";
import { ACTIVE_STATUSES } from "@/lib/contract/task";
import { RUN_ACTIVE_STATUSES } from "@/lib/contract/shapes";
import { db } from "@/lib/db/kysely";
import { literals } from "@/lib/db/sql-list";
import { claimExecutionSql, nextExecutionDueSql } from "@/lib/tasks/sql";
import { claimCancelsSql } from "@/lib/tasks/cancel-sql";
import { claimRunsSql } from "@/lib/runs/sql";
import { claimNotificationSql } from "@/lib/notify/sql";
import { taskHistorySql } from "@/lib/tasks/history-sql";
import { planWithoutSeqScans, type Explainable } from "@/tests/explain";

/**
 * Every hot lookup must be servable by an index: with sequential scans
 * priced out, a plan that still reads a whole table means no index can
 * answer it (the table only grows with every account's history).
 */
const HOT_TABLES = ["task", "run", "message", "event", "conversation"];

function seqScans(text: string): string[] {
  return [...text.matchAll(/Seq Scan on "?(\w+)"?/g)].map((m) => m[1]).filter((t) => HOT_TABLES.includes(t));
}

const OWNER = "index-test-owner";

describe("hot queries are served by indexes", () => {
  const recent = sql<Date>`now() - interval '60 seconds'`;
  const cases: [string, Explainable][] = [
    ["task execution claim", claimExecutionSql("w", 4, null)],
    ["task cancel claim", claimCancelsSql("w", 2)],
    ["notification claim", claimNotificationSql("w", 4, 10_000, null)],
    ["run claim", claimRunsSql("w", 4)],
    ["next execution wake-up", nextExecutionDueSql],
    [
      "message idempotency",
      db().selectFrom("message").select("id").where("ownerId", "=", OWNER).where("clientMessageId", "=", "x"),
    ],
    [
      "task idempotency",
      db().selectFrom("task").select("id").where("ownerId", "=", OWNER).where("clientRequestId", "=", "x"),
    ],
    ["run idempotency", db().selectFrom("run").select("id").where("idempotencyKey", "=", "x")],
    [
      "active-task quota",
      db()
        .selectFrom("task")
        .select(sql<number>`count(*)::int`.as("n"))
        .where("ownerId", "=", OWNER)
        .where("status", "in", literals(ACTIVE_STATUSES)),
    ],
    [
      "task-start rate",
      db()
        .selectFrom("task")
        .select(sql<number>`count(*)::int`.as("n"))
        .where("ownerId", "=", OWNER)
        .where("createdAt", ">", recent),
    ],
    [
      "message rate",
      db()
        .selectFrom("message")
        .select(sql<number>`count(*)::int`.as("n"))
        .where("ownerId", "=", OWNER)
        .where("kind", "=", "user")
        .where((eb) => eb.not(eb.ref("hidden")))
        .where("createdAt", ">", recent),
    ],
    [
      "queued turns",
      db()
        .selectFrom("run")
        .select(sql<number>`count(*)::int`.as("n"))
        .where("ownerId", "=", OWNER)
        .where("kind", "=", "chat")
        .where("status", "in", literals(RUN_ACTIVE_STATUSES)),
    ],
    [
      "feed replay",
      db()
        .selectFrom("event")
        .selectAll()
        .where("ownerId", "=", OWNER)
        .where("seq", ">", 10n)
        .orderBy("seq")
        .limit(100),
    ],
    [
      "conversation page before a seq",
      db()
        .selectFrom("message")
        .selectAll()
        .where("conversationId", "=", "c")
        .where("ownerId", "=", OWNER)
        .where((eb) => eb.not(eb.ref("hidden")))
        .where("seq", "<", 2147483647)
        .orderBy("seq", "desc")
        .limit(51),
    ],
    ["task history", taskHistorySql(OWNER, "t", null, 101)],
  ];
  for (const [name, statement] of cases) {
    it(name, async () => {
      const text = await planWithoutSeqScans(statement);
      expect(seqScans(text), text).toEqual([]);
    });
  }
});
