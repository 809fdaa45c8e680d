import { env } from "@/lib/config/env";
import type { Task } from "@/lib/db/generated/client.ts";
import type { LoopSpec } from "@/lib/fleet/loop";
import { recordEventAndAnnounce } from "@/lib/notify/event";
import { fenceCancel } from "@/lib/tasks/request-cancel";
import { setStopReason } from "@/lib/tasks/sql";
import { budgetOf, type StopReason } from "@/lib/tasks/columns";
import { findDue, lockDue, markDueEvaluated, nextDueMs } from "@/lib/delivery/sql";
import { evaluateDue } from "@/lib/delivery/contract";
import { factsOf, STOPPED_AT_DEADLINE, syncNotices, writeNotice } from "@/lib/delivery/sync-notices";
import { transactionWithEvents, type EventTx } from "@/lib/events/emit";

export function budgetExceeded(
  task: Pick<Task, "budget" | "modelRequests" | "inputTokens" | "outputTokens" | "startedAt" | "createdAt">,
  now: Date,
): boolean {
  const b = budgetOf(task);
  if (b.maxModelRequests !== undefined && task.modelRequests >= b.maxModelRequests) return true;
  if (b.maxTokens !== undefined && task.inputTokens + task.outputTokens >= b.maxTokens) return true;
  const since = task.startedAt ?? task.createdAt;
  return b.maxWallSeconds !== undefined && now.getTime() - since.getTime() >= b.maxWallSeconds * 1000;
}

/** Stops the research through the ordinary cancel fence; partials stay. The reason picks the notice. */
export async function stopAtDeadline(tx: EventTx, task: Task, reason: StopReason = STOPPED_AT_DEADLINE): Promise<void> {
  await setStopReason(tx, task.id, reason);
  await fenceCancel(tx, task.ownerId, task.id);
}

export async function evaluateDueTask(id: string): Promise<"evaluated" | "skipped"> {
  return transactionWithEvents(async (tx) => {
    const task = await lockDue(tx, id);
    if (!task) return "skipped";
    const facts = await factsOf(tx, task);
    const ev = evaluateDue(facts, {
      allowOvertime: task.allowOvertime,
      budgetExceeded: budgetExceeded(task, task.dbNow),
    });
    const evaluated = await markDueEvaluated(tx, id, ev.outcome);
    if (ev.notice) await writeNotice(tx, evaluated, ev.notice);
    if (ev.stop) await stopAtDeadline(tx, evaluated);
    // A result that landed after dueAt but before this evaluation gets its late notice now.
    await syncNotices(tx, id);
    await recordEventAndAnnounce(tx, id);
    return "evaluated";
  });
}

/**
 * The due loop: sleeps until the earliest unevaluated dueAt (woken early by a
 * NOTIFY when a nearer one is created), then evaluates each due task once, in
 * one transaction that locks the row, writes deliveryOutcome (once), the due
 * notice and the outbox event. A crash rolls the whole evaluation back.
 */
export function dueLoop(): LoopSpec<string> {
  // Rows being evaluated here stay "due" until their transaction commits; without
  // this set the loop would re-claim them and spin instead of sleeping.
  const busy = new Set<string>();
  return {
    name: "due",
    concurrency: 4,
    // The fallback only; the loop normally sleeps exactly until the next dueAt.
    pollMs: env("HERALD_DUE_POLL_MS"),
    claim: async (limit) => {
      const ids = await findDue(limit, [...busy]);
      for (const id of ids) busy.add(id);
      return ids;
    },
    work: (id) => evaluateDueTask(id).finally(() => busy.delete(id)),
    nextWakeMs: () => nextDueMs([...busy]),
  };
}
