import { isUniqueViolation } from "@/lib/db/errors";
import { getDb } from "@/lib/db/client";
import { transaction, type Tx } from "@/lib/db/kysely";
import { parseDeliveryPhrase, type ParsedDelivery } from "@/lib/text/delivery-phrases";
import { dueAtFrom } from "@/lib/contract/due-at";
import { assertMessageAdmitted } from "@/lib/limits/quotas";
import { messageAdmission, type MessageAdmission } from "@/lib/limits/sql";
import { insertChatRun } from "@/lib/runs/sql";
import type { DeliveryContract } from "@/lib/contract/schemas";
import { ApiError } from "@/lib/errors/api-error";
import type { Prisma } from "@/lib/db/generated/client.ts";
import { emitEvent } from "@/lib/events/emit";
import type { PublicMessage, PublicRun } from "@/lib/contract/shapes";
import { driverForWorkChoice } from "@/lib/drivers/choices";
import { appendMessageRow } from "./append-message";
import { renameConversation, transactionNowMs } from "./sql";
import { titleFromMessage } from "./titles";
import { toPublicConversation, toPublicMessage, toPublicRun } from "@/lib/contract/message";

export interface PostMessageInput {
  content: string;
  clientMessageId: string;
  /** From the composer's picker; otherwise parsed from the text ("tell me in 10 minutes"). */
  delivery?: DeliveryContract;
  /** The composer's "Work with" picker (an id of workChoices()); the start tool sends the turn's task there. */
  workWith?: string;
}

/**
 * The contract is fixed here, on the accepted message: dueAt = the message's
 * createdAt (now() is constant within the transaction, so it is exactly that
 * timestamp) + the duration. Nothing later — reloads, model turns — moves it.
 * The phrase was parsed before the transaction opened (no text work under locks).
 */
async function deliveryMeta(
  tx: Tx,
  input: PostMessageInput,
  parsed: ParsedDelivery | null,
): Promise<Prisma.InputJsonValue | undefined> {
  const d: DeliveryContract | null = input.delivery ?? parsed;
  if (!d) return undefined;
  const now = await transactionNowMs(tx);
  const dueAt = dueAtFrom(d, now, now);
  return {
    delivery: {
      mode: d.mode,
      dueAt: dueAt.toISOString(),
      dueInSeconds: (dueAt.getTime() - now.getTime()) / 1000,
      reportIfUnfinished: d.reportIfUnfinished ?? false,
      allowOvertime: d.allowOvertime ?? true,
      ...(input.delivery?.budget ? { budget: input.delivery.budget } : {}),
      source: input.delivery ? "picker" : "phrase",
    },
  };
}

/** The picker's id rides on the message (opaque), resolved to a driver only when the start tool runs. */
function withWorkChoice(
  meta: Prisma.InputJsonValue | undefined,
  workWith: string | undefined,
): Prisma.InputJsonValue | undefined {
  if (workWith === undefined) return meta;
  return { ...((meta as Record<string, Prisma.InputJsonValue> | undefined) ?? {}), workWith };
}

async function findExisting(ownerId: string, conversationId: string, clientMessageId: string) {
  const db = getDb();
  const message = await db.message.findUnique({ where: { ownerId_clientMessageId: { ownerId, clientMessageId } } });
  if (!message) return null;
  if (message.conversationId !== conversationId) {
    throw new ApiError("conflict", "clientMessageId was already used for another conversation", "clientMessageId");
  }
  const run = await db.run.findFirstOrThrow({ where: { triggerMessageId: message.id } });
  return { message: toPublicMessage(message), run: toPublicRun(run) };
}

/**
 * Accepts a user turn: the message and its queued run commit together, so a
 * worker can never see a run without its message or the reverse. Resubmitting
 * the same clientMessageId returns the first result instead of a second turn.
 *
 * A resubmission is rare, so it is not looked for up front: the insert's unique
 * key (ownerId, clientMessageId) finds it, the transaction rolls back (no seq is
 * spent), and the first result is read then. A turn is four statements in one
 * transaction: seq bump + insert, message.created, the quota counts + run insert,
 * run.updated + worker wake-up (and two more to name an untitled chat).
 */
export async function postMessage(
  ownerId: string,
  conversationId: string,
  input: PostMessageInput,
): Promise<{ message: PublicMessage; run: PublicRun; created: boolean }> {
  const resubmitted = async () => {
    const existing = await findExisting(ownerId, conversationId, input.clientMessageId);
    return existing ? { ...existing, created: false } : null;
  };
  if (input.workWith !== undefined && !driverForWorkChoice(input.workWith)) {
    // A resubmission is answered as it was the first time, whatever else changed.
    const again = await resubmitted();
    if (again) return again;
    throw new ApiError("bad_request", "workWith: not a choice this server offers (GET /api/work-choices)", "workWith");
  }
  const parsed = input.delivery ? null : parseDeliveryPhrase(input.content);
  try {
    // Not transactionWithEvents: the run's admission counts queued turns after the message's event took the account lock.
    return await transaction(async (tx) => {
      const appended = await appendMessageRow(tx, {
        conversationId,
        ownerId,
        kind: "user",
        content: input.content,
        clientMessageId: input.clientMessageId,
        meta: withWorkChoice(await deliveryMeta(tx, input, parsed), input.workWith),
      });
      const { message, titleSource } = appended!;
      // After the insert: appendMessage locked the conversation, then the account
      // (writer order), so concurrent posts of one account are counted in turn.
      const { run, admission } = await insertChatRun<MessageAdmission>(
        tx,
        { ownerId, conversationId, triggerMessageId: message.id },
        messageAdmission(ownerId),
      );
      assertMessageAdmitted(admission);
      await emitEvent(tx, ownerId, { type: "run.updated", data: { run: toPublicRun(run!) } }, { conversationId }, [
        "runs",
      ]);
      // The first message names the conversation for now; the first exchange may name it better (titles.ts).
      if (titleSource === "none") {
        const renamed = await renameConversation(tx, conversationId, titleFromMessage(input.content), "message");
        await emitEvent(
          tx,
          ownerId,
          { type: "conversation.updated", data: { conversation: toPublicConversation(renamed) } },
          { conversationId },
        );
      }
      return { message: toPublicMessage(message), run: toPublicRun(run!), created: true };
    });
  } catch (err) {
    // The same clientMessageId again (two identical submissions may also race: the
    // loser gets the winner's result), or again after its conversation was deleted.
    if (isUniqueViolation(err) || (err instanceof ApiError && err.code === "not_found")) {
      const again = await resubmitted();
      if (again) return again;
    }
    throw err;
  }
}
