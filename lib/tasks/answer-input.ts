import { transaction } from "@/lib/db/kysely";
import { ApiError, notFound } from "@/lib/errors/api-error";
import { emitTaskUpdated } from "./emit-task";
import { lockOwnedTask, storeInputResponse } from "./owner-sql";
import { toPublicTask, type PublicTask } from "@/lib/contract/task";

/**
 * Stores the user's answer to an input request. The web process never calls a
 * remote: the next execution claim hands the answer to the driver under the
 * task's lease, so a crash in between loses nothing and sends nothing twice.
 */
export async function answerInput(ownerId: string, id: string, response: string): Promise<PublicTask> {
  return transaction(async (tx) => {
    const task = await lockOwnedTask(tx, ownerId, id);
    if (!task) throw notFound("Task");
    if (task.status !== "input_required" || task.cancelRequestedAt) {
      throw new ApiError(
        "conflict",
        `The task is ${task.cancelRequestedAt ? "being cancelled" : task.status}, not waiting for input`,
      );
    }
    if (task.inputResponse !== null) throw new ApiError("conflict", "An answer is already on its way to the task");
    const updated = await storeInputResponse(tx, id, response);
    await emitTaskUpdated(tx, updated, ["tasks"]);
    return toPublicTask(updated);
  });
}
