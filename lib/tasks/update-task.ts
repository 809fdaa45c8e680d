import { transaction } from "@/lib/db/kysely";
import { ApiError, notFound } from "@/lib/errors/api-error";
import { emitTaskUpdated } from "./emit-task";
import { appendPendingUpdate, lockOwnedTask } from "./owner-sql";
import { pendingUpdatesOf } from "./columns";
import { driverFor } from "@/lib/drivers/registry";
import { toPublicTask, type PublicTask } from "@/lib/contract/task";
import { isTerminalStatus } from "@/lib/contract/task";
import { MAX_UPDATE_CHARS } from "@/lib/contract/schemas";

const MAX_PENDING_UPDATES = 20;

/** New instructions for a running task; the next research step honours them. */
export async function updateTask(ownerId: string, id: string, message: string): Promise<PublicTask> {
  // Bounded here, not only by the routes' schemas: the agent's tool and the Agent Protocol reach this too, and every
  // pending update is sent to the model with each remaining section.
  if (message.length > MAX_UPDATE_CHARS) {
    throw new ApiError(
      "bad_request",
      `message: new instructions take at most ${MAX_UPDATE_CHARS} characters`,
      "message",
    );
  }
  return transaction(async (tx) => {
    const task = await lockOwnedTask(tx, ownerId, id);
    if (!task) throw notFound("Task");
    if (isTerminalStatus(task.status) || task.cancelRequestedAt) {
      throw new ApiError(
        "conflict",
        `The task is ${task.cancelRequestedAt ? "being cancelled" : task.status}; start a new task instead`,
      );
    }
    if (!driverFor(task.driver)?.acceptsUpdates) {
      throw new ApiError(
        "conflict",
        "This kind of task cannot take new instructions; cancel it and start a new one",
        "message",
      );
    }
    const pending = pendingUpdatesOf(task);
    if (pending.length >= MAX_PENDING_UPDATES)
      throw new ApiError("conflict", "Too many pending updates; wait for the next step", "message");
    const updated = await appendPendingUpdate(tx, id, [...pending, message]);
    await emitTaskUpdated(tx, updated, ["tasks"]);
    return toPublicTask(updated);
  });
}
