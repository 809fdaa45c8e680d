import { toPublicNotice } from "@/lib/contract/notice";
import type { Task } from "@/lib/db/generated/client.ts";
import type { Executor, Tx } from "@/lib/db/kysely";
import type { NoticeMessageMeta } from "@/lib/contract/shapes";
import { appendMessage } from "@/lib/chat/append-message";
import type { TaskStatus } from "@/lib/contract/task";
import { emitEvent } from "@/lib/events/emit";
import { queueNoticeEmail } from "@/lib/email/queue-notice-email";
import { byOutcome, noticeInConversation, plannedNotices, type ContractFacts, type NoticeSpec } from "./contract";
import { closeAtEnd, finalPublicationId, insertNotice, setDeliveryOutcomeOnce, type NoticeRow } from "./sql";
import type { StopReason } from "@/lib/tasks/columns";

/** Host wording: built from committed facts only, never from model text. */
export function noticeText(task: Pick<Task, "title" | "error">, spec: NoticeSpec): string {
  const t = `"${task.title}"`;
  const body = spec.publicationId ? "the report it points to is linked here" : "nothing has been published yet";
  switch (spec.outcome) {
    case "on_time":
      return spec.key === "due"
        ? `${t} is due now and the final report is ready.`
        : `${t} finished on time; the final report is ready.`;
    case "early":
      return `${t} finished before the promised time; the final report is ready.`;
    case "late":
      return `${t} finished after the promised time; the final report is ready now.`;
    case "missed":
      return `${t} is due now but not finished; ${spec.publicationId ? "a partial report is available" : "nothing has been published yet"}. It keeps working and will report again when done.`;
    case "stopped":
      return spec.key === "stopped"
        ? `${t} ran past the deadline as far as you allowed and was stopped; ${spec.publicationId ? "the partial report is kept" : "nothing had been published"}.`
        : `${t} reached its deadline and was stopped; ${spec.publicationId ? "the partial report is kept" : "nothing had been published"}.`;
    case "failed":
      return `${t} failed: ${(task.error ?? "unknown error").slice(0, 300)}; ${body}.`;
    case "cancelled":
      return `${t} was cancelled; anything already published stays available.`;
    case "input":
      return `${t} needs your input.`;
    default:
      return `${t} finished; the report is ready.`;
  }
}

export async function factsOf(tx: Executor, task: Task): Promise<ContractFacts> {
  const finalId = await finalPublicationId(tx, task.id);
  return {
    mode: task.deliveryMode as ContractFacts["mode"],
    dueAt: task.dueAt,
    createdAt: task.createdAt,
    reportIfUnfinished: task.reportIfUnfinished,
    status: task.status,
    completedAt: task.completedAt,
    dueEvaluatedAt: task.dueEvaluatedAt,
    stoppedAtDeadline: task.stopReason === STOPPED_AT_DEADLINE,
    stoppedInOvertime: task.stopReason === STOPPED_IN_OVERTIME,
    finalPublicationId: finalId ?? null,
    latestPublicationId: task.latestPublicationId,
  };
}

export const STOPPED_AT_DEADLINE: StopReason = "at_deadline";
export const STOPPED_IN_OVERTIME: StopReason = "overtime_spent";

/** Whether the due loop or the overtime check stopped the task (they write the reason before fencing it). */
export function stoppedByDeadline(task: Pick<Task, "stopReason">): boolean {
  return task.stopReason !== null;
}

/**
 * Writes one notice (idempotent by its unique key per task) with its `notice`
 * message and feed event. Returns null when the key already existed.
 */
export async function writeNotice(
  tx: Executor,
  task: Task,
  spec: NoticeSpec,
  text = noticeText(task, spec),
): Promise<NoticeRow | null> {
  const notice = await insertNotice(tx, task, spec, text);
  if (!notice) return null;
  await queueNoticeEmail(tx, notice, task);
  if (noticeInConversation(spec.key))
    await appendMessage(tx, {
      skipIfGone: true,
      conversationId: task.conversationId,
      ownerId: task.ownerId,
      taskId: task.id,
      publicationId: spec.publicationId,
      kind: "notice",
      content: text,
      meta: {
        noticeId: notice.id,
        noticeKey: spec.key,
        outcome: spec.outcome,
        taskStatus: task.status as TaskStatus,
        title: task.title,
        dueAt: task.dueAt?.toISOString() ?? null,
      } satisfies NoticeMessageMeta,
    });
  await emitEvent(
    tx,
    task.ownerId,
    { type: "notice.created", data: { notice: { ...toPublicNotice(notice) } } },
    {
      conversationId: task.conversationId,
      taskId: task.id,
    },
  );
  return notice;
}

/** Brings the task's notices up to date with its committed facts (caller holds the row lock). */
export async function syncNotices(tx: Tx, taskId: string): Promise<NoticeRow[]> {
  // A promise that ended with a cancel or a failure is closed before anything else reads the row.
  const task = await closeAtEnd(tx, taskId);
  const written: NoticeRow[] = [];
  const facts = await factsOf(tx, task);
  for (const spec of plannedNotices(facts)) {
    const n = await writeNotice(tx, task, spec);
    if (n) written.push(n);
  }
  // A by-contract met before its dueAt is settled at completion; written once.
  if (
    task.deliveryMode === "by" &&
    task.status === "succeeded" &&
    !task.deliveryOutcome &&
    task.dueAt &&
    task.completedAt
  ) {
    const outcome = byOutcome(task.completedAt, task.createdAt, task.dueAt);
    if (outcome !== "late") {
      await setDeliveryOutcomeOnce(tx, task.id, outcome);
    }
  }
  return written;
}
