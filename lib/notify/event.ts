import { createHash } from "node:crypto";
import type { Executor, Tx } from "@/lib/db/kysely";
import type { Task } from "@/lib/db/generated/client.ts";
import { emitTaskUpdated } from "@/lib/tasks/emit-task";
import { applyOutboxPatch, lockTaskForEvent, publicationPartial } from "./sql";
import { isVisible, onEvent, type EventSnapshot } from "./state";
import { TRACKING_DEGRADED_AFTER } from "@/lib/drivers/types";
import { isTerminalStatus } from "@/lib/contract/task";

export const EVENT_ERROR_CHARS = 500;

/**
 * The whitelisted facts a notification may tell, or null when the task needs
 * no attention. Only these fields feed the fingerprint, so nothing else (progress,
 * leases, remote handles) can cause or leak into a notification.
 *
 * `latestPublicationPartial` is the `partial` flag of the publication named by
 * `latestPublicationId`; leave it undefined when unknown (recorded as null).
 */
export function buildEventSnapshot(task: Task, latestPublicationPartial?: boolean | null): EventSnapshot | null {
  const terminal = isTerminalStatus(task.status);
  // A cancel is underway: the question or due report it would repeat is moot,
  // and the cancelled (or actual terminal) event follows.
  if (!terminal && task.cancelRequestedAt !== null) return null;
  // "Tell me at T": a result that is ready early waits for the due moment (docs/state-machines.md#delivery-contracts).
  if (
    task.status === "succeeded" &&
    task.deliveryMode === "at" &&
    task.dueAt !== null &&
    task.dueEvaluatedAt === null
  ) {
    return null;
  }
  const degraded = !terminal && task.consecutiveErrors >= TRACKING_DEGRADED_AFTER;
  if (!terminal && task.status !== "input_required" && !dueMomentIsReported(task) && !degraded) return null;
  const error = task.error === null ? null : task.error.slice(0, EVENT_ERROR_CHARS);
  return {
    taskId: task.id,
    title: task.title,
    status: task.status as EventSnapshot["status"],
    error,
    inputRequest:
      task.status === "input_required" ? ((task.inputRequest ?? null) as EventSnapshot["inputRequest"]) : null,
    latestPublicationId: task.latestPublicationId,
    latestPublicationPartial: task.latestPublicationId === null ? null : (latestPublicationPartial ?? null),
    deliveryMode: task.deliveryMode as EventSnapshot["deliveryMode"],
    dueAt: task.dueAt?.toISOString() ?? null,
    deliveryOutcome: task.deliveryOutcome as EventSnapshot["deliveryOutcome"],
    cancelRequested: task.cancelRequestedAt !== null,
    trackingDegraded: degraded,
  };
}

/** A due moment tells the user something unless it is a "by" deadline missed without report-anyway. */
function dueMomentIsReported(task: Task): boolean {
  if (task.dueEvaluatedAt === null) return false;
  return !(task.deliveryMode === "by" && !task.reportIfUnfinished && task.deliveryOutcome === "missed");
}

/** JSON with sorted keys and no whitespace; values JSON cannot hold become strings. */
export function canonicalJson(value: unknown): string {
  return JSON.stringify(normalize(value));
}

function normalize(v: unknown): unknown {
  if (v === null || typeof v === "string" || typeof v === "boolean") return v;
  if (typeof v === "number") return Number.isFinite(v) ? v : String(v);
  if (typeof v === "bigint") return v.toString();
  if (v instanceof Date) return v.toISOString();
  if (Array.isArray(v)) return v.map((x) => (x === undefined || typeof x === "function" ? null : normalize(x)));
  if (typeof v === "object") {
    const out: Record<string, unknown> = {};
    for (const k of Object.keys(v as object).sort()) {
      const x = (v as Record<string, unknown>)[k];
      if (x === undefined || typeof x === "function") continue;
      out[k] = normalize(x);
    }
    return out;
  }
  return String(v);
}

export function fingerprint(snapshot: EventSnapshot): string {
  return createHash("sha256").update(canonicalJson(snapshot), "utf8").digest("hex");
}

/** The snapshot of the row as it is now, with the publication flag read in the same transaction. */
export async function currentSnapshot(tx: Executor, task: Task): Promise<EventSnapshot | null> {
  const partial = task.latestPublicationId ? await publicationPartial(tx, task.latestPublicationId) : null;
  return buildEventSnapshot(task, partial);
}

/**
 * Records the task's current event if it differs from the last one (T1), then
 * sends the one `task.updated` a writer owes the feed after its change. Call it
 * in the same transaction as the change that may have produced an event (status,
 * input request, due evaluation, publication). The announcement is made from the
 * row the lock already read (or the patch returned), never a second read. Returns
 * true when a new event version was recorded.
 */
export async function recordEventAndAnnounce(tx: Tx, taskId: string): Promise<boolean> {
  const locked = await lockTaskForEvent(tx, taskId);
  if (!locked) return false;
  const { task, dbNow } = locked;
  const snapshot = await currentSnapshot(tx, task);
  const decision = onEvent(task, snapshot === null ? null : fingerprint(snapshot));
  if (!decision) {
    await emitTaskUpdated(tx, task);
    return false;
  }
  const visible = decision.t === "T1" && isVisible(task, decision.patch);
  const updated = await applyOutboxPatch(tx, { id: task.id }, decision.patch, dbNow, { touch: visible });
  await emitTaskUpdated(tx, updated, decision.t === "T1" ? ["notify"] : []);
  return decision.t === "T1" || decision.t === "T1f";
}
