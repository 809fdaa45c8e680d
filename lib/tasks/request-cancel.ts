import { getDb } from "@/lib/db/client";
import { transaction, type Tx } from "@/lib/db/kysely";
import { ApiError, notFound } from "@/lib/errors/api-error";
import { liveWorkers } from "@/lib/fleet/heartbeat";
import { emitTaskUpdated } from "./emit-task";
import type { TaskRow } from "./sql";
import { lockOwnedTask, markCancelAnsweredInChat, setCancelFence } from "./owner-sql";
import { toPublicTask, type PublicTask } from "@/lib/contract/task";
import { isTerminalStatus } from "@/lib/contract/task";

/**
 * Sets the cancel fence inside tx. The first request stamps cancelRequestedAt
 * and drops the execution lease, so a step finishing late fails its guard and
 * is discarded. Repeats change nothing (in particular they keep an existing
 * cancel lease, so two workers never cancel the same remote task at once).
 * Terminal tasks are returned unchanged.
 *
 * `answeredInChat`: a chat turn of the task's own conversation asked, and its
 * reply tells the user so; the terminal line of the cancel is then stored
 * hidden (one moment, one message), whichever of the two commits first.
 */
export async function fenceCancel(
  tx: Tx,
  ownerId: string,
  id: string,
  answeredInChat = false,
): Promise<TaskRow | null> {
  const task = await lockOwnedTask(tx, ownerId, id);
  if (!task) return null;
  if (isTerminalStatus(task.status)) return task;
  if (task.cancelRequestedAt) {
    if (answeredInChat && !task.cancelAnsweredInChat) await markCancelAnsweredInChat(tx, id);
    return task;
  }
  const fenced = await setCancelFence(tx, id, answeredInChat);
  await emitTaskUpdated(tx, fenced, ["cancel", `task-cancel:${id}`]);
  return fenced;
}

export async function requestCancel(
  ownerId: string,
  id: string,
  opts: { answeredInChat?: boolean } = {},
): Promise<PublicTask> {
  const db = getDb();
  // Ownership first so a foreign id is 404 even when no worker runs.
  if (!(await db.task.findFirst({ where: { id, ownerId }, select: { id: true } }))) throw notFound("Task");
  // Refuse before writing anything: a fence nobody acts on would strand the task in "Cancelling…".
  if ((await liveWorkers()).alive === 0) {
    throw new ApiError(
      "unavailable",
      "No worker is running, so the task cannot be cancelled now; start a worker (npm run worker) and try again",
    );
  }
  const task = await transaction((tx) => fenceCancel(tx, ownerId, id, opts.answeredInChat ?? false));
  if (!task) throw notFound("Task");
  return toPublicTask(task);
}
