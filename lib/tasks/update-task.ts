import { getDb } from "@/lib/db/client";
import type { Task } from "@/lib/db/generated/client.ts";
import { ApiError, notFound } from "@/lib/api/errors";
import { wakeWorkers } from "@/lib/events/emit";
import { emitTaskUpdated } from "./emit-task";
import { driverFor } from "@/lib/drivers/registry";
import { toPublicTask, type PublicTask } from "./public";

const MAX_PENDING_UPDATES = 20;

/** New instructions for a running task; the next research step honours them. */
export async function updateTask(ownerId: string, id: string, message: string): Promise<PublicTask> {
  return getDb().$transaction(async (tx) => {
    const rows = await tx.$queryRaw<Task[]>`SELECT * FROM "task" WHERE id = ${id} AND "ownerId" = ${ownerId} FOR UPDATE`;
    const task = rows[0];
    if (!task) throw notFound("Task");
    if (["succeeded", "failed", "cancelled"].includes(task.status) || task.cancelRequestedAt) {
      throw new ApiError("conflict", `The task is ${task.cancelRequestedAt ? "being cancelled" : task.status}; start a new task instead`);
    }
    if (!driverFor(task.driver)?.acceptsUpdates) {
      throw new ApiError("conflict", "This kind of task cannot take new instructions; cancel it and start a new one", "message");
    }
    const pending = Array.isArray(task.pendingUpdates) ? (task.pendingUpdates as string[]) : [];
    if (pending.length >= MAX_PENDING_UPDATES) throw new ApiError("conflict", "Too many pending updates; wait for the next step", "message");
    const [updated] = await tx.$queryRaw<Task[]>`
      UPDATE "task" SET "pendingUpdates" = ${JSON.stringify([...pending, message])}::jsonb, "updatedAt" = now(),
        status = CASE WHEN status IN ('queued', 'running') THEN 'updating' ELSE status END
      WHERE id = ${id} RETURNING *`;
    await emitTaskUpdated(tx, updated);
    await wakeWorkers(tx, "tasks");
    return toPublicTask(updated);
  });
}
