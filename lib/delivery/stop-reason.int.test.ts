import { describe, expect, it } from "vitest";
import { randomUUID } from "node:crypto";
import { getDb } from "@/lib/db/client";
import { db as kysely } from "@/lib/db/kysely";
import { sql } from "kysely";
import { transactionWithEvents } from "@/lib/events/emit";
import { evaluateDueTask, stopAtDeadline } from "@/lib/runtime/due-loop";
import { executeCancel } from "@/lib/runtime/execute-cancel";
import { claimCancels } from "@/lib/tasks/cancel-sql";
import { STOPPED_IN_OVERTIME } from "./sync-notices";
import { createConversationFor, signUp } from "@/tests/helpers";

// Why a deadline stopped a task has its own column: the cancel loop and the notices read it, whatever `error` holds.

const db = () => getDb();
const task = (id: string) => db().task.findUniqueOrThrow({ where: { id } });
const notices = async (id: string) =>
  (await db().notice.findMany({ where: { taskId: id }, orderBy: { createdAt: "asc" } })).map((n) => [n.key, n.outcome]);

/** A running research task past its due time, no worker anywhere: each loop's step is called by the test. */
async function runningPastDue(error: string | null, allowOvertime: boolean): Promise<string> {
  const u = await signUp("StopReason");
  const conv = await createConversationFor(u);
  const id = randomUUID();
  await kysely()
    .insertInto("task")
    .values({
      id,
      ownerId: u.id,
      conversationId: conv,
      title: "past due",
      prompt: "p",
      status: "running",
      deliveryMode: "at",
      dueAt: sql<Date>`now() - interval '1 second'`,
      allowOvertime,
      error,
      startedAt: sql<Date>`now()`,
      updatedAt: sql<Date>`now()`,
    })
    .execute();
  return id;
}

/** What the cancel loop does with the fenced task. */
async function cancelLoopStep(id: string): Promise<void> {
  const claimed = await claimCancels("stop-reason-test", 10);
  expect(claimed.map((t) => t.id)).toEqual([id]);
  expect(await executeCancel(claimed[0], new AbortController().signal)).toBe("cancelled");
}

describe("a deadline stop", () => {
  it("ends deadline_exceeded even when a failed attempt already left its error on the row", async () => {
    const id = await runningPastDue("The search service did not answer; trying again.", false);
    expect(await evaluateDueTask(id)).toBe("evaluated");
    await cancelLoopStep(id);
    const t = await task(id);
    expect([t.status, t.stopReason, t.error]).toEqual([
      "deadline_exceeded",
      "at_deadline",
      "The search service did not answer; trying again.",
    ]);
    expect(await notices(id)).toEqual([["due", "stopped"]]);
  });

  it("in overtime: the reason and its sentence are written once, and the notice says stopped", async () => {
    const id = await runningPastDue(null, true);
    expect(await evaluateDueTask(id)).toBe("evaluated");
    await transactionWithEvents(async (tx) => stopAtDeadline(tx, await task(id), STOPPED_IN_OVERTIME));
    // A second stop (the due loop racing the overtime check) changes neither.
    await transactionWithEvents(async (tx) => stopAtDeadline(tx, await task(id)));
    await cancelLoopStep(id);
    const t = await task(id);
    expect([t.status, t.stopReason, t.error]).toEqual([
      "deadline_exceeded",
      "overtime_spent",
      "stopped after the deadline: overtime budget spent",
    ]);
    expect(await notices(id)).toEqual([
      ["due", "missed"],
      ["stopped", "stopped"],
    ]);
  });

  it("a user's cancel leaves no reason and ends cancelled", async () => {
    const id = await runningPastDue(null, true);
    await db().task.update({ where: { id }, data: { cancelRequestedAt: new Date(), nextCancelAt: new Date(0) } });
    await cancelLoopStep(id);
    const t = await task(id);
    expect([t.status, t.stopReason]).toEqual(["cancelled", null]);
  });
});
