import type { MessageKind, PublicConversation } from "@/lib/contract/shapes";
import type { Prisma } from "@/lib/db/generated/client.ts";
import type { Executor } from "@/lib/db/kysely";
import { ApiError } from "@/lib/errors/api-error";
import { emitEvent } from "@/lib/events/emit";
import { toPublicMessage } from "@/lib/contract/message";
import { appendMessageSql, type MessageRow } from "./sql";
import { SILENT_KINDS } from "./unread-sql";

export interface NewMessage {
  conversationId: string;
  ownerId: string;
  kind: MessageKind;
  content: string;
  hidden?: boolean;
  taskId?: string | null;
  runId?: string | null;
  publicationId?: string | null;
  meta?: Prisma.InputJsonValue;
  clientMessageId?: string | null;
  /** Host facts about a conversation deleted meanwhile are dropped instead of failing the writer. */
  skipIfGone?: boolean;
}

/** What appendMessageRow wrote, and the conversation's title source as that statement left it. */
export interface Appended {
  message: MessageRow;
  titleSource: string;
}

/**
 * Every message goes through here: the conversation row is locked to hand out
 * the next per-conversation seq, and visible messages are announced on the feed
 * in the same transaction. Refuses deleted or foreign conversations (404).
 */
export async function appendMessage(tx: Executor, m: NewMessage & { skipIfGone: true }): Promise<MessageRow | null>;
export async function appendMessage(tx: Executor, m: NewMessage): Promise<MessageRow>;
export async function appendMessage(tx: Executor, m: NewMessage): Promise<MessageRow | null> {
  return (await appendMessageRow(tx, m))?.message ?? null;
}

/**
 * appendMessage, also telling the caller the conversation's title source: a user's
 * turn names an untitled conversation, and this saves it reading the row it just locked.
 */
export async function appendMessageRow(tx: Executor, m: NewMessage): Promise<Appended | null> {
  // createdAt is the database's now() (constant within the transaction), not
  // Prisma's client-side default: delivery contracts are anchored on it. To the
  // millisecond, as deliveryMeta reads it: a JavaScript Date holds no microseconds,
  // and the raw and the model read paths did not round them alike (dueAt 1 ms off).
  // Read marks ride on the same row update: a reader's own turn means they have
  // seen everything before it; anything else that speaks is one more unread when it
  // starts a new moment (lib/chat/unread-sql.ts): a reply of no task, or the first
  // unread message of its task that is not held back until an `at` promise is due.
  // One statement (seq bump under the row lock, then the insert that uses it):
  // every message of every loop pays for this, and two round trips were one too many.
  const own = m.kind === "user" && !m.hidden;
  const speaks = !m.hidden && !(SILENT_KINDS as readonly string[]).includes(m.kind);
  const status = (m.meta as { status?: unknown } | null | undefined)?.status;
  // Only an end that is not the promised result may be said before the promised moment.
  const mayWait = m.kind !== "notice" && !(m.kind === "terminal" && status !== "succeeded");
  const values = { ...m, hidden: m.hidden ?? false, meta: m.meta };
  const { rows } = await appendMessageSql(values, { own, speaks, mayWait }).execute(tx);
  if (rows.length === 0) {
    if (m.skipIfGone) return null;
    throw new ApiError("not_found", "Conversation not found");
  }
  const { titleSource, cTitle, cCreatedAt, cUpdatedAt, cPinnedAt, cLastReadSeq, cUnreadCount, cNewUnread, ...message } =
    rows[0];
  if (!message.hidden) {
    await emitEvent(
      tx,
      m.ownerId,
      { type: "message.created", data: { message: toPublicMessage(message) } },
      { conversationId: m.conversationId, taskId: m.taskId },
    );
  }
  // Browsers take the count from here rather than counting messages themselves: only the
  // server knows which moment a message belongs to, so every device shows the same number.
  if (cNewUnread) {
    const conversation: PublicConversation = {
      id: m.conversationId,
      title: cTitle,
      createdAt: cCreatedAt.toISOString(),
      updatedAt: cUpdatedAt.toISOString(),
      pinned: cPinnedAt !== null,
      unread: cUnreadCount,
      lastReadSeq: cLastReadSeq,
      lastSeq: message.seq,
    };
    await emitEvent(
      tx,
      m.ownerId,
      { type: "conversation.updated", data: { conversation } },
      { conversationId: m.conversationId },
    );
  }
  return { message, titleSource };
}
