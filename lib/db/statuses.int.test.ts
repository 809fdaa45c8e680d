import { describe, expect, it } from "vitest";
import { randomUUID } from "node:crypto";
import { sql } from "kysely";
import { getDb } from "@/lib/db/client";
import { db } from "@/lib/db/kysely";
import { EMAIL_NOTICE_MODES } from "@/lib/contract/settings";
import { MESSAGE_KINDS, NOTICE_OUTCOMES, RUN_ACTIVE_STATUSES, RUN_KINDS, RUN_STATUSES } from "@/lib/contract/shapes";
import {
  ACTIVE_STATUSES,
  DELIVERY_MODES,
  DELIVERY_OUTCOMES,
  TASK_STATUSES,
  TERMINAL_STATUSES,
} from "@/lib/contract/task";
import { EMAIL_CLAIMABLE, EMAIL_STATES } from "@/lib/email/state";
import { CLAIMABLE as NOTIFY_CLAIMABLE, NOTIFICATION_STATUSES } from "@/lib/notify/state";
import { postMessage } from "@/lib/chat/post-message";
import { claimCancelsSql } from "@/lib/tasks/cancel-sql";
import { STOP_REASONS } from "@/lib/tasks/columns";
import { planWithoutSeqScans } from "@/tests/explain";
import { createConversationFor, signUp } from "@/tests/helpers";

/**
 * The closed sets the code writes are the ones the database enforces: each
 * CHECK constraint lists exactly its column's constant, and the partial
 * indexes the loops claim through list exactly the loop's group.
 */
const CHECKS: { table: string; column: string; values: readonly string[] }[] = [
  { table: "task", column: "status", values: TASK_STATUSES },
  { table: "task", column: "notificationStatus", values: NOTIFICATION_STATUSES },
  { table: "task", column: "deliveryMode", values: DELIVERY_MODES },
  { table: "task", column: "deliveryOutcome", values: DELIVERY_OUTCOMES },
  { table: "run", column: "status", values: RUN_STATUSES },
  { table: "run", column: "kind", values: RUN_KINDS },
  { table: "message", column: "kind", values: MESSAGE_KINDS },
  { table: "notice", column: "emailState", values: EMAIL_STATES },
  { table: "notice", column: "outcome", values: NOTICE_OUTCOMES },
  { table: "user", column: "emailNotices", values: EMAIL_NOTICE_MODES },
  { table: "task", column: "stopReason", values: STOP_REASONS },
];

/** Status-like columns whose values are open on purpose (a driver's own step names). */
const OPEN_COLUMNS = ["task_step.kind"];

const sorted = (v: readonly string[]) => [...v].sort();
const literals = (def: string) => [...def.matchAll(/'([^']*)'::text/g)].map((m) => m[1]);

async function checkDef(table: string, column: string): Promise<string | null> {
  const { rows } = await sql<{ def: string }>`
    SELECT pg_get_constraintdef(c.oid) AS def FROM pg_constraint c
    WHERE c.conrelid = ${`"${table}"`}::regclass AND c.contype = 'c' AND c.convalidated
      AND c.conname = ${`${table}_${column}_check`}`.execute(db());
  return rows[0]?.def ?? null;
}

async function indexPredicate(name: string): Promise<string> {
  const { rows } = await sql<{ pred: string }>`
    SELECT pg_get_expr(i.indpred, i.indrelid) AS pred FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid WHERE c.relname = ${name}`.execute(
    db(),
  );
  return rows[0].pred;
}

/** The error a statement fails with (Prisma wraps the driver's; pg's carries its constraint), as text. */
async function failure(run: () => Promise<unknown>): Promise<string> {
  try {
    await run();
  } catch (err) {
    return `${String(err)} ${JSON.stringify((err as { meta?: unknown }).meta ?? null)}`;
  }
  return "(no error)";
}

describe("the database enforces every status the code defines", () => {
  for (const { table, column, values } of CHECKS) {
    it(`${table}.${column} allows exactly the code's set`, async () => {
      const def = await checkDef(table, column);
      expect(def, `${table}_${column}_check`).not.toBeNull();
      expect(sorted(literals(def!))).toEqual(sorted(values));
    });
  }

  it("leaves no status-like text column unchecked", async () => {
    const { rows: unchecked } = await sql<{ col: string }>`
      SELECT col.table_name || '.' || col.column_name AS col FROM information_schema.columns col
      WHERE col.table_schema = current_schema() AND col.data_type = 'text'
        AND col.column_name ~* '(status|state|kind|mode|outcome|notices)$'
        AND NOT EXISTS (
          SELECT 1 FROM pg_constraint c JOIN pg_attribute a ON a.attrelid = c.conrelid AND a.attnum = ANY (c.conkey)
          WHERE c.contype = 'c' AND c.conrelid = format('%I', col.table_name)::regclass AND a.attname = col.column_name)
      ORDER BY 1`.execute(db());
    expect(unchecked.map((c) => c.col)).toEqual(OPEN_COLUMNS);
  });

  it("refuses a write outside the set, from SQL and from Prisma's client", async () => {
    const u = await signUp("Statuses");
    const conv = await createConversationFor(u);
    const { run, message } = await postMessage(u.id, conv, { content: "hi", clientMessageId: randomUUID() });
    const prisma = getDb();
    const task = await prisma.task.create({ data: { ownerId: u.id, conversationId: conv, title: "t", prompt: "p" } });
    const notice = await prisma.notice.create({
      data: { taskId: task.id, conversationId: conv, ownerId: u.id, key: "final", outcome: "done", text: "n" },
    });
    const ids: Record<string, string> = {
      task: task.id,
      run: run!.id,
      message: message.id,
      notice: notice.id,
      user: u.id,
    };

    for (const { table, column } of CHECKS) {
      const err = await failure(() =>
        sql`UPDATE ${sql.table(table)} SET ${sql.ref(column)} = 'bogus' WHERE id = ${ids[table]}`.execute(db()),
      );
      expect(err, `${table}.${column}`).toContain(`${table}_${column}_check`);
    }
    expect(await failure(() => prisma.task.update({ where: { id: task.id }, data: { status: "done" } }))).toContain(
      "task_status_check",
    );
    // The rows are as they were: every value the code writes still goes in.
    for (const status of TASK_STATUSES) await prisma.task.update({ where: { id: task.id }, data: { status } });
    for (const notificationStatus of NOTIFICATION_STATUSES)
      await prisma.task.update({ where: { id: task.id }, data: { notificationStatus } });
    for (const emailState of EMAIL_STATES)
      await prisma.notice.update({ where: { id: notice.id }, data: { emailState } });
    await prisma.task.update({ where: { id: task.id }, data: { deliveryOutcome: null } });
  });
});

describe("the partial indexes the loops claim through list the loops' groups", () => {
  const cases: [string, readonly string[]][] = [
    ["task_exec_due_idx", ACTIVE_STATUSES],
    ["task_exec_order_idx", ACTIVE_STATUSES],
    ["task_owner_active_idx", ACTIVE_STATUSES],
    ["task_cancel_due_idx", TERMINAL_STATUSES],
    ["task_notify_due_idx", NOTIFY_CLAIMABLE],
    ["notice_email_due_idx", EMAIL_CLAIMABLE],
    ["run_due_idx", RUN_ACTIVE_STATUSES],
    ["run_owner_active_idx", RUN_ACTIVE_STATUSES],
  ];
  for (const [name, values] of cases) {
    it(name, async () => {
      expect(sorted(literals(await indexPredicate(name)))).toEqual(sorted(values));
    });
  }

  it("the cancel claim is served by task_cancel_due_idx", async () => {
    const plan = await planWithoutSeqScans(claimCancelsSql("w", 2));
    expect(plan).toContain("task_cancel_due_idx");
  });
});
