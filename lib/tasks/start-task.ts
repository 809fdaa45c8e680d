import { isUniqueViolation } from "@/lib/db/errors";
import { getDb } from "@/lib/db/client";
import { transaction } from "@/lib/db/kysely";
import { ApiError } from "@/lib/errors/api-error";
import { Prisma } from "@/lib/db/generated/client.ts";
import { emitTaskUpdated } from "./emit-task";
import { insertTaskIfAdmitted } from "./sql";
import { lockStartConversation } from "./owner-sql";
import { toPublicTask, type PublicTask } from "@/lib/contract/task";
import { isKnownDriver } from "@/lib/drivers/setup";
import type { DeliveryContract } from "@/lib/contract/schemas";
import { taskRefusal } from "@/lib/limits/quotas";
import { taskAdmission, type TaskAdmission } from "@/lib/limits/sql";
import { simulateAllowed } from "@/lib/limits/config";
import { dueAtFrom } from "@/lib/contract/due-at";

export interface StartTaskInput {
  ownerId: string;
  conversationId: string;
  title: string;
  prompt: string;
  driver?: string;
  clientRequestId: string;
  originMessageId?: string | null;
  originRunId?: string | null;
  /** Driver options, e.g. research `simulate: {steps, stepMs}`. */
  options?: Prisma.InputJsonValue;
  delivery?: DeliveryContract;
  /** The accepted message the delivery contract is anchored on (its createdAt is the DB clock). */
  anchorAt?: Date;
}

const TITLE_MAX = 120;

/**
 * Persists the launch intent (status `submitted`) and returns at once; a worker
 * submits it to its driver. Idempotent on (owner, clientRequestId): a retried
 * tool call or HTTP request returns the task it already created.
 */
export async function startTask(input: StartTaskInput): Promise<{ task: PublicTask; created: boolean }> {
  const driver = input.driver ?? "research";
  if (!isKnownDriver(driver)) throw new ApiError("bad_request", `driver: unknown driver "${driver}"`, "driver");
  if ((input.options as { simulate?: unknown } | undefined)?.simulate !== undefined && !simulateAllowed()) {
    throw new ApiError(
      "bad_request",
      "options.simulate: not enabled on this server (HERALD_ALLOW_SIMULATE=1)",
      "options.simulate",
    );
  }
  const db = getDb();
  const existing = async () => {
    const again = await db.task.findUnique({
      where: { ownerId_clientRequestId: { ownerId: input.ownerId, clientRequestId: input.clientRequestId } },
    });
    return again ? { task: toPublicTask(again), created: false } : null;
  };
  let started: { task: PublicTask; created: boolean } | null;
  try {
    // Not Prisma's interactive transaction: this is the path of every POST /api/tasks.
    started = await transaction(async (tx) => {
      // The conversation before the account (writer order: never a deadlock with workers
      // appending messages); the account's lock serialises its starts for the quota.
      // A retry whose task exists takes neither: a worker holds that task's row and takes
      // the account's lock last, and a retry waiting on the row under that lock was a deadlock.
      // Looked for in the same statement, so a first start pays no round trip for it.
      const conv = await lockStartConversation(tx, input);
      if (conv.length === 0) return null;
      const d = input.delivery;
      const dueAt = d ? dueAtFrom(d, input.anchorAt ?? conv[0].now, conv[0].now) : null;
      // By code points, so a cut never leaves half an emoji behind.
      const title =
        Array.from(input.title.trim().replace(/\s+/g, " ")).slice(0, TITLE_MAX).join("") || "Background task";
      const { admission, task } = await insertTaskIfAdmitted<TaskAdmission>(
        tx,
        conv[0].now,
        {
          ownerId: input.ownerId,
          conversationId: input.conversationId,
          originMessageId: input.originMessageId ?? null,
          originRunId: input.originRunId ?? null,
          clientRequestId: input.clientRequestId,
          title,
          prompt: input.prompt,
          driver,
          options: input.options,
          deliveryMode: d?.mode ?? "none",
          dueAt,
          reportIfUnfinished: d?.reportIfUnfinished ?? false,
          allowOvertime: d?.allowOvertime ?? true,
          budget: d?.budget,
        },
        taskAdmission(input.ownerId),
      );
      if (!task) throw taskRefusal(admission);
      await emitTaskUpdated(tx, task, dueAt ? ["tasks", "due"] : ["tasks"]);
      return { task: toPublicTask(task), created: true };
    });
  } catch (err) {
    // The same request racing its first run (the unique key finds it), or refused (quota, rate) after that run
    // succeeded: answered as the first time was.
    if (isUniqueViolation(err) || err instanceof ApiError) {
      const again = await existing();
      if (again) return again;
    }
    throw err;
  }
  // No row: this request's task exists (a retry, even after its chat was deleted), or the chat is not there.
  const result = started ?? (await existing());
  if (!result) throw new ApiError("not_found", "Conversation not found");
  return result;
}
