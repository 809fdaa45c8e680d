import type { Executor } from "@/lib/db/kysely";
import { emitEvent } from "@/lib/events/emit";
import { isTerminalStatus, toPublicTask } from "@/lib/contract/task";
import type { TaskRow } from "./sql";
import { readTask } from "./read-sql";

/** Announces the task's current public shape on the owner's feed, inside tx (waking `wake` loops at commit). */
export async function emitTaskUpdated(tx: Executor, task: TaskRow, wake: readonly string[] = []): Promise<void> {
  // A run that is over is what an Agent Protocol webhook waits for (lib/agent-protocol/webhook-sql.ts): its loop wakes at
  // the commit instead of finding the row at its next poll. Waking costs each worker one claim when there is none.
  const ended = isTerminalStatus(task.status) || task.status === "input_required";
  await emitEvent(
    tx,
    task.ownerId,
    { type: "task.updated", data: { task: { ...toPublicTask(task) } } },
    {
      conversationId: task.conversationId,
      taskId: task.id,
    },
    ended ? [...wake, "ap-webhooks"] : wake,
  );
}

/** Re-reads the row inside tx and announces it; for writers that used raw SQL. */
export async function emitTaskById(tx: Executor, taskId: string): Promise<TaskRow> {
  const task = await readTask(tx, taskId);
  if (!task) throw new Error(`emitTaskById: no task ${taskId}`);
  await emitTaskUpdated(tx, task);
  return task;
}
