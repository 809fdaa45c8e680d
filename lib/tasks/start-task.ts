import { isUniqueViolation } from "@/lib/db/errors";
import { getDb, sqlTransaction } from "@/lib/db/client";
import { ApiError } from "@/lib/errors/api-error";
import { Prisma } from "@/lib/db/generated/client.ts";
import { emitTaskUpdated } from "./emit-task";
import { insertTaskIfAdmitted } from "./sql";
import { toPublicTask, type PublicTask } from "@/lib/contract/task";
import { driverFor } from "@/lib/drivers/registry";
import type { DeliveryContract } from "@/lib/contract/schemas";
import { registerConfiguredMcpDrivers } from "@/lib/drivers/mcp-config";
import { registerConfiguredAgentDrivers } from "@/lib/drivers/agent-config";
import { taskAdmission, taskRefusal, type TaskAdmission } from "@/lib/limits/quotas";
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
  registerConfiguredMcpDrivers();
  registerConfiguredAgentDrivers();
  if (!driverFor(driver)) throw new ApiError("bad_request", `driver: unknown driver "${driver}"`, "driver");
  if ((input.options as { simulate?: unknown } | undefined)?.simulate !== undefined && !simulateAllowed()) {
    throw new ApiError("bad_request", "options.simulate: not enabled on this server (HERALD_ALLOW_SIMULATE=1)", "options.simulate");
  }
  const db = getDb();
  // A retry is rare, so it is not looked for up front: the insert's unique key finds it,
  // and so does a refusal (quota, rate, a chat deleted since), answered as the first time was.
  try {
    // On `pg`, not Prisma: every statement here is raw SQL, and this is the path of every POST /api/tasks.
    return await sqlTransaction(async (tx) => {
      // The conversation before the account (writer order: never a deadlock with workers
      // appending messages); the account's lock serialises its starts for the quota.
      const conv = await tx.$queryRaw<{ id: string; now: Date }[]>`
        SELECT c.id, now() AS now FROM "conversation" c JOIN "user" u ON u.id = c."ownerId"
        WHERE c.id = ${input.conversationId} AND c."ownerId" = ${input.ownerId} AND c."deletedAt" IS NULL
        FOR SHARE OF c FOR UPDATE OF u`;
      if (conv.length === 0) throw new ApiError("not_found", "Conversation not found");
      const d = input.delivery;
      const dueAt = d ? dueAtFrom(d, input.anchorAt ?? conv[0].now, conv[0].now) : null;
      // By code points, so a cut never leaves half an emoji behind.
      const title = Array.from(input.title.trim().replace(/\s+/g, " ")).slice(0, TITLE_MAX).join("") || "Background task";
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
    if (isUniqueViolation(err) || err instanceof ApiError) {
      const again = await db.task.findUnique({
        where: { ownerId_clientRequestId: { ownerId: input.ownerId, clientRequestId: input.clientRequestId } },
      });
      if (again) return { task: toPublicTask(again), created: false };
    }
    throw err;
  }
}
