import type { SqlTx } from "@/lib/db/client";
import type { Task } from "@/lib/db/generated/client.ts";
import { emitEvent } from "@/lib/events/emit";
import { toPublicTask } from "@/lib/contract/task";

/** Announces the task's current public shape on the owner's feed, inside tx (waking `wake` loops at commit). */
export async function emitTaskUpdated(tx: SqlTx, task: Task, wake: readonly string[] = []): Promise<void> {
  await emitEvent(tx, task.ownerId, { type: "task.updated", data: { task: { ...toPublicTask(task) } } }, {
    conversationId: task.conversationId,
    taskId: task.id,
  }, wake);
}

/** Re-reads the row inside tx and announces it; for writers that used raw SQL. */
export async function emitTaskById(tx: SqlTx, taskId: string): Promise<Task> {
  const [task] = await tx.$queryRaw<Task[]>`SELECT * FROM "task" WHERE id = ${taskId}`;
  if (!task) throw new Error(`emitTaskById: no task ${taskId}`);
  await emitTaskUpdated(tx, task);
  return task;
}
