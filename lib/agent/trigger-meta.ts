// What a user's message carries beside its text (lib/chat/post-message.ts stores it): the delivery contract fixed when
// the message was accepted and the "Work with" choice. Read by the agent's tools; never written by a model.
import { z } from "zod";
import type { DeliveryContract } from "@/lib/contract/schemas";
import { MAX_DUE_SECONDS } from "@/lib/contract/schemas";
import { readJsonColumn } from "@/lib/util/json-column";
import { driverForWorkChoice } from "@/lib/drivers/choices";

// Looser than the stored meta's shape on purpose: a contract given only as
// dueInSeconds is anchored on the message's createdAt by startTask.
const deliverySchema = z.object({
  mode: z.enum(["at", "by"]),
  dueInSeconds: z.number().positive().max(MAX_DUE_SECONDS).optional(),
  dueAt: z
    .string()
    .refine((s) => !Number.isNaN(Date.parse(s)))
    .optional(),
  reportIfUnfinished: z.boolean().optional(),
  allowOvertime: z.boolean().optional(),
  budget: z
    .object({
      maxModelRequests: z.number().int().positive().optional(),
      maxWallSeconds: z.number().positive().optional(),
      maxTokens: z.number().int().positive().optional(),
    })
    .optional(),
});

/**
 * A user message's meta as lib/chat/post-message.ts stores it: its delivery contract and the "Work with" choice,
 * which stays on the server (the public meta, lib/contract/shapes.ts, drops it).
 */
const triggerMetaSchema = z.object({ delivery: deliverySchema.nullable().optional(), workWith: z.string().optional() });

const triggerMetaOf = (message: { meta: unknown }) =>
  readJsonColumn("message.meta (user)", triggerMetaSchema, message.meta, {});

/**
 * The delivery contract of the run's trigger message, fixed when the message
 * was accepted (`meta.delivery`: the picker, or phrases the host parsed then).
 * Never anything the model says: a model cannot move a promise.
 */
export function deliveryFromMessage(message: { meta: unknown }): DeliveryContract | undefined {
  const { delivery } = triggerMetaOf(message);
  if (!delivery || (delivery.dueAt === undefined && delivery.dueInSeconds === undefined)) return undefined;
  return delivery;
}

/** The driver the user picked for this turn ("Work with"), if the server still offers it. */
export function workChoiceOf(message: { meta: unknown }): string | null {
  const id = triggerMetaOf(message).workWith;
  return id !== undefined ? driverForWorkChoice(id) : null;
}
