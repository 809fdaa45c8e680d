import { getDb } from "@/lib/db/client";
import { jsonb, transaction } from "@/lib/db/kysely";
import type { ApThread } from "@/lib/contract/ap";
import { toPublicConversation } from "@/lib/contract/message";
import { ApiError } from "@/lib/errors/api-error";
import { emitEvent } from "@/lib/events/emit";
import { admitConversation } from "@/lib/limits/conversation-quota";
import { insertConversation } from "@/lib/chat/sql";
import { assertMetadataBounded } from "./bounds";
import { toApThread } from "./project";
import { threadTasks } from "./thread-access";

export const AP_THREAD_TITLE = "Agent Protocol thread";

/**
 * A thread is a conversation of the key's account, so work started through it
 * shows in the account's sidebar and sheet like any other, and it is bounded by
 * the account's conversation limits. `thread_id` lets a
 * caller choose the id (idempotent creation with `if_exists: "do_nothing"`).
 */
export async function createThread(
  ownerId: string,
  input: { metadata?: Record<string, unknown>; thread_id?: string; if_exists?: "raise" | "do_nothing" },
): Promise<ApThread> {
  assertMetadataBounded(input.metadata);
  const db = getDb();
  if (input.thread_id) {
    const existing = await db.conversation.findUnique({ where: { id: input.thread_id } });
    if (existing) {
      if (existing.ownerId === ownerId && existing.deletedAt === null && input.if_exists === "do_nothing") {
        return toApThread(existing, await threadTasks(ownerId, existing.id));
      }
      throw new ApiError("conflict", "thread_id: a thread with this id already exists", "thread_id");
    }
  }
  const created = await transaction(async (tx) => {
    // A thread is a conversation row: it counts towards the same limits.
    await admitConversation(tx, ownerId);
    const c = await insertConversation(tx, {
      ...(input.thread_id ? { id: input.thread_id } : {}),
      ownerId,
      title: AP_THREAD_TITLE,
      apMetadata: jsonb(input.metadata ?? {}),
    });
    await emitEvent(
      tx,
      ownerId,
      { type: "conversation.updated", data: { conversation: toPublicConversation(c) } },
      { conversationId: c.id },
    );
    return c;
  });
  return toApThread(created, []);
}
