import { z } from "zod";
import type { Task } from "@/lib/db/generated/client.ts";
import { readJsonColumn } from "@/lib/util/json-column";

/**
 * The task table's typed columns: the closed set of `stopReason` (its CHECK constraint lists the same, compared by
 * lib/db/statuses.int.test.ts) and one zod schema per JSON column, applied where the column is read. Prisma types a
 * JSON column as any JSON, so a row written by an older version or by hand would otherwise reach the code unchecked
 * (lib/util/json-column.ts reads it). Driver data belongs to its driver: each reads its own shape the same way.
 */

/** Why the delivery contract stopped the task: at its due moment (no overtime), or later with its overtime budget spent. */
export const STOP_REASONS = ["at_deadline", "overtime_spent"] as const;
export type StopReason = (typeof STOP_REASONS)[number];

/** The sentence a deadline stop leaves in `error` when nothing else is there (people read it; code reads stopReason). */
export const STOP_SENTENCES: Record<StopReason, string> = {
  at_deadline: "stopped at the deadline",
  overtime_spent: "stopped after the deadline: overtime budget spent",
};

/** task.pendingUpdates: the user's instructions no step has taken yet, oldest first. */
const pendingUpdatesSchema = z.array(z.string());

export function pendingUpdatesOf(task: Pick<Task, "pendingUpdates"> & { id?: string }): string[] {
  return readJsonColumn("task.pendingUpdates", pendingUpdatesSchema, task.pendingUpdates, [], task.id);
}

/** task.inputResponse: the user's answer to the remote's question, as storeInputResponse (lib/tasks/sql.ts) writes it. */
const inputResponseSchema = z.object({ response: z.string() });

/** The stored answer; "" when there is none or it cannot be read. */
export function inputResponseOf(task: Pick<Task, "inputResponse" | "id">): string {
  return readJsonColumn("task.inputResponse", inputResponseSchema, task.inputResponse, { response: "" }, task.id)
    .response;
}

/** task.budget: the overtime budget the delivery contract allowed (lib/contract/schemas.ts deliveryInput bounds it). */
const budgetSchema = z.object({
  maxModelRequests: z.number().optional(),
  maxWallSeconds: z.number().optional(),
  /** Input plus output tokens, as the provider reported them. */
  maxTokens: z.number().optional(),
});
export type Budget = z.infer<typeof budgetSchema>;

export function budgetOf(task: Pick<Task, "budget"> & { id?: string }): Budget {
  return readJsonColumn("task.budget", budgetSchema, task.budget, {}, task.id);
}

/** task_step.input is the driver's own; the instructions a step consumed are the one part read outside it. */
const stepUpdatesSchema = z.object({ updates: z.array(z.string()) });

export function stepUpdatesOf(input: unknown): string[] {
  const parsed = stepUpdatesSchema.safeParse(input);
  return parsed.success ? parsed.data.updates : [];
}
