import type { DB } from "@/lib/db/generated/kysely.ts";
import { db, jsonb, prepared, type Tx } from "@/lib/db/kysely";
import { sql, type Insertable, type Selectable } from "kysely";
import { heldUntilDue, momentTaskOf, speaks as speaksSql } from "./unread-sql";

// Every write of the conversation and message rows: the seq and unread bookkeeping under the conversation's row lock.

/** A conversation row as Kysely reads it (Prisma's `Conversation`). */
export type ConversationRow = Selectable<DB["conversation"]>;
/** A message row as Kysely reads it (Prisma's `Message`). */
export type MessageRow = Selectable<DB["message"]>;

/** What appendMessage writes; the rest takes its column default. */
export type MessageValues = Pick<
  Insertable<DB["message"]>,
  "conversationId" | "ownerId" | "kind" | "content" | "taskId" | "runId" | "publicationId" | "clientMessageId"
> & { hidden: boolean; meta: unknown };

/** The inserted message beside the conversation row as the same statement left it (`c…`). */
export type AppendedRow = MessageRow &
  Pick<ConversationRow, "titleSource"> & {
    cTitle: ConversationRow["title"];
    cCreatedAt: ConversationRow["createdAt"];
    cUpdatedAt: ConversationRow["updatedAt"];
    cPinnedAt: ConversationRow["pinnedAt"];
    cLastReadSeq: ConversationRow["lastReadSeq"];
    cUnreadCount: ConversationRow["unreadCount"];
    /** Whether the message starts a new unread moment (lib/chat/unread-sql.ts). */
    cNewUnread: boolean | null;
  };

/**
 * The seq bump and the insert that uses it, in one statement (lib/chat/append-message.ts says why). `own`: the
 * reader's own turn (read marks move to it); `speaks`: it may be unread; `mayWait`: an `at` promise not yet due holds
 * it back. No row when the conversation is deleted or not the owner's.
 */
export function appendMessageSql(m: MessageValues, f: { own: boolean; speaks: boolean; mayWait: boolean }) {
  return sql<AppendedRow>`${prepared}
    WITH moment AS (
      SELECT t.id, t."deliveryMode", t."dueAt" FROM "task" t
      WHERE t.id = coalesce(${m.taskId ?? null}::text, (SELECT r."taskId" FROM "run" r WHERE r.id = ${m.runId ?? null}::text))),
    news AS (
      SELECT ${f.speaks}::boolean
        AND NOT coalesce(${f.mayWait}::boolean AND (SELECT "deliveryMode" = 'at' AND date_trunc('milliseconds', now()) < "dueAt" FROM moment), false)
        AND NOT EXISTS (
          SELECT 1 FROM "conversation" c, "message" m, moment
          WHERE c.id = ${m.conversationId} AND m."conversationId" = c.id AND m.seq > c."lastReadSeq"
            AND ${speaksSql("m")} AND ${momentTaskOf("m")} = moment.id AND NOT ${heldUntilDue("m", "moment")}) AS counts),
    bumped AS (
      UPDATE "conversation" SET "messageSeq" = "messageSeq" + 1, "updatedAt" = now(),
        "lastReadSeq" = CASE WHEN ${f.own} THEN "messageSeq" + 1 ELSE "lastReadSeq" END,
        "unreadCount" = CASE WHEN ${f.own} THEN 0 WHEN (SELECT counts FROM news) THEN "unreadCount" + 1 ELSE "unreadCount" END
      WHERE id = ${m.conversationId} AND "ownerId" = ${m.ownerId} AND "deletedAt" IS NULL
      RETURNING "messageSeq", "titleSource", title, "createdAt", "updatedAt", "pinnedAt", "lastReadSeq", "unreadCount",
        (SELECT counts FROM news) AS "newUnread"),
    inserted AS (
      INSERT INTO "message" ("conversationId", "ownerId", seq, "createdAt", kind, content, hidden, "taskId", "runId",
        "publicationId", meta, "clientMessageId")
      SELECT ${m.conversationId}, ${m.ownerId}, bumped."messageSeq", date_trunc('milliseconds', now()), ${m.kind}, ${m.content}, ${m.hidden}::boolean,
        ${m.taskId ?? null}, ${m.runId ?? null}, ${m.publicationId ?? null},
        ${jsonb(m.meta)}::jsonb, ${m.clientMessageId ?? null}
      FROM bumped
      RETURNING *)
    SELECT inserted.*, bumped."titleSource", bumped.title AS "cTitle", bumped."createdAt" AS "cCreatedAt",
      bumped."updatedAt" AS "cUpdatedAt", bumped."pinnedAt" AS "cPinnedAt", bumped."lastReadSeq" AS "cLastReadSeq",
      bumped."unreadCount" AS "cUnreadCount", bumped."newUnread" AS "cNewUnread"
    FROM inserted, bumped`;
}

/** The owner's live conversation, locked (the lock appendMessage takes); undefined when deleted or foreign. */
export async function lockConversation(tx: Tx, ownerId: string, id: string): Promise<ConversationRow | undefined> {
  return tx
    .selectFrom("conversation")
    .selectAll()
    .where("id", "=", id)
    .where("ownerId", "=", ownerId)
    .where("deletedAt", "is", null)
    .forUpdate()
    .executeTakeFirst();
}

/**
 * A conversation (a chat or an Agent Protocol thread), after admitConversation in the same transaction; its id from
 * the default unless given.
 */
export async function insertConversation(
  tx: Tx,
  c: Pick<Insertable<DB["conversation"]>, "id" | "ownerId" | "title" | "titleSource" | "apMetadata">,
): Promise<ConversationRow> {
  return tx.insertInto("conversation").values(c).returningAll().executeTakeFirstOrThrow();
}

/**
 * A new title and who made it. updatedAt stays: the callers rename in the transaction that appended the message
 * which moved it.
 */
export async function renameConversation(
  tx: Tx,
  id: string,
  title: string,
  titleSource: string,
): Promise<ConversationRow> {
  return tx
    .updateTable("conversation")
    .set({ title, titleSource })
    .where("id", "=", id)
    .returningAll()
    .executeTakeFirstOrThrow();
}

/**
 * Rename (the user's title: titleSource `user`) and pin. A rename is not activity: it moves `updatedAt` by the
 * column's smallest step only (lib/chat/update-conversation.ts).
 */
export async function patchConversation(
  tx: Tx,
  id: string,
  patch: { title?: string; pinned?: boolean },
): Promise<ConversationRow> {
  const title = patch.title ?? null;
  const pinned = patch.pinned ?? null;
  return tx
    .updateTable("conversation")
    .set({
      title: sql<string>`COALESCE(${title}::text, "title")`,
      titleSource: sql<string>`CASE WHEN ${title}::text IS NULL THEN "titleSource" ELSE 'user' END`,
      pinnedAt: sql<Date | null>`CASE
          WHEN ${pinned}::boolean IS NULL THEN "pinnedAt"
          WHEN ${pinned}::boolean THEN COALESCE("pinnedAt", now())
          ELSE NULL END`,
      updatedAt: sql<Date>`"updatedAt" + interval '1 millisecond'`,
    })
    .where("id", "=", id)
    .returningAll()
    .executeTakeFirstOrThrow();
}

/** The account's pinned live conversations. */
export async function countPinned(tx: Tx, ownerId: string): Promise<number> {
  const { n } = await tx
    .selectFrom("conversation")
    .select(sql<number>`count(*)::int`.as("n"))
    .where("ownerId", "=", ownerId)
    .where("deletedAt", "is", null)
    .where("pinnedAt", "is not", null)
    .executeTakeFirstOrThrow();
  return n;
}

/**
 * Unread moments after `seq`, not rows (lib/chat/unread-sql.ts): a task's unread messages are one. Counting stops
 * at `cap`.
 */
export async function countUnreadMoments(tx: Tx, id: string, seq: number, cap: number): Promise<number> {
  const {
    rows: [{ n }],
  } = await sql<{ n: number }>`
    SELECT count(DISTINCT coalesce(moment_task, m.id))::int AS n FROM (
      SELECT m.*, ${momentTaskOf("m")} AS moment_task FROM "message" m
      WHERE m."conversationId" = ${id} AND m.seq > ${seq} AND ${speaksSql("m")}
      ORDER BY m.seq LIMIT ${cap}
    ) m LEFT JOIN "task" t ON t.id = m.moment_task
    WHERE NOT ${heldUntilDue("m", "t")}`.execute(tx);
  return n;
}

/** The read mark and the unread count after it. updatedAt stays: reading is not activity, and the list is ordered by it. */
export async function setReadMark(tx: Tx, id: string, seq: number, unread: number): Promise<ConversationRow> {
  return tx
    .updateTable("conversation")
    .set({ lastReadSeq: seq, unreadCount: unread })
    .where("id", "=", id)
    .returningAll()
    .executeTakeFirstOrThrow();
}

/** Soft delete of the owner's live conversation: its id, or undefined when there was none. */
export async function softDeleteConversation(tx: Tx, ownerId: string, id: string): Promise<string | undefined> {
  const row = await tx
    .updateTable("conversation")
    .set({ deletedAt: sql<Date>`now()`, updatedAt: sql<Date>`now()` })
    .where("id", "=", id)
    .where("ownerId", "=", ownerId)
    .where("deletedAt", "is", null)
    .returning("id")
    .executeTakeFirst();
  return row?.id;
}

/** Locks the owner's conversations in id order, as an account deletion does after runs and tasks. */
export async function lockOwnerConversations(tx: Tx, ownerId: string): Promise<void> {
  await tx.selectFrom("conversation").select("id").where("ownerId", "=", ownerId).orderBy("id").forUpdate().execute();
}

export async function readConversation(tx: Tx, id: string): Promise<ConversationRow> {
  return tx.selectFrom("conversation").selectAll().where("id", "=", id).executeTakeFirstOrThrow();
}

/** The account's messages, on its deletion. */
export async function deleteOwnerMessages(tx: Tx, ownerId: string): Promise<void> {
  await tx.deleteFrom("message").where("ownerId", "=", ownerId).execute();
}

/** The account's conversations, on its deletion (after everything that names one). */
export async function deleteOwnerConversations(tx: Tx, ownerId: string): Promise<void> {
  await tx.deleteFrom("conversation").where("ownerId", "=", ownerId).execute();
}

// ---- reads of a turn's title and delivery note (./titles.ts, ./delivery-note.ts) ----

/** The conversation, locked, while its title may still change (`none`, `message`, `exchange`); undefined otherwise. */
export async function lockRetitlable(
  tx: Tx,
  ownerId: string,
  conversationId: string,
): Promise<Pick<ConversationRow, "id" | "title" | "titleSource"> | undefined> {
  return tx
    .selectFrom("conversation")
    .select(["id", "title", "titleSource"])
    .where("id", "=", conversationId)
    .where("ownerId", "=", ownerId)
    .where("deletedAt", "is", null)
    .where("titleSource", "in", ["none", "message", "exchange"])
    .forUpdate()
    .executeTakeFirst();
}

/** The title of the first task the run started in the conversation. */
export async function firstTaskTitleOfRun(
  tx: Tx,
  ownerId: string,
  conversationId: string,
  runId: string,
): Promise<string | undefined> {
  const task = await tx
    .selectFrom("task")
    .select("title")
    .where("ownerId", "=", ownerId)
    .where("conversationId", "=", conversationId)
    .where("originRunId", "=", runId)
    .orderBy("createdAt")
    .limit(1)
    .executeTakeFirst();
  return task?.title;
}

/** The text of the conversation's first visible user message. */
export async function firstUserText(tx: Tx, ownerId: string, conversationId: string): Promise<string | undefined> {
  const first = await tx
    .selectFrom("message")
    .select("content")
    .where("conversationId", "=", conversationId)
    .where("ownerId", "=", ownerId)
    .where("kind", "=", "user")
    .where("hidden", "=", false)
    .orderBy("seq")
    .limit(1)
    .executeTakeFirst();
  return first?.content;
}

/** The text of the user message that triggered the run. */
export async function triggerText(tx: Tx, ownerId: string, runId: string): Promise<string | undefined> {
  const trigger = await tx
    .selectFrom("run as r")
    .innerJoin("message as m", "m.id", "r.triggerMessageId")
    .select("m.content")
    .where("r.id", "=", runId)
    .where("r.ownerId", "=", ownerId)
    .where("m.kind", "=", "user")
    .executeTakeFirst();
  return trigger?.content;
}

/** The user message a chat run answers, if it is still the owner's in that conversation. */
export async function userTrigger(
  tx: Tx,
  r: { ownerId: string; conversationId: string; triggerMessageId: string },
): Promise<Pick<MessageRow, "id" | "meta"> | undefined> {
  return tx
    .selectFrom("message")
    .select(["id", "meta"])
    .where("id", "=", r.triggerMessageId)
    .where("conversationId", "=", r.conversationId)
    .where("ownerId", "=", r.ownerId)
    .where("kind", "=", "user")
    .executeTakeFirst();
}

/** Tasks the run or its trigger message started. */
export async function countTasksStartedBy(tx: Tx, ownerId: string, runId: string, messageId: string): Promise<number> {
  const { started } = await tx
    .selectFrom("task")
    .select(sql<number>`count(*)::int`.as("started"))
    .where("ownerId", "=", ownerId)
    .where((eb) => eb.or([eb("originRunId", "=", runId), eb("originMessageId", "=", messageId)]))
    .executeTakeFirstOrThrow();
  return started;
}

/** The account's language and time zone, read in the caller's transaction. */
export async function accountWording(
  tx: Tx,
  userId: string,
): Promise<{ language: string | null; timeZone: string | null } | undefined> {
  return tx.selectFrom("user").select(["language", "timeZone"]).where("id", "=", userId).executeTakeFirst();
}

/** The transaction's now(), to the millisecond (a message's createdAt): a turn's delivery promise counts from it. */
export async function transactionNowMs(tx: Tx): Promise<Date> {
  const {
    rows: [{ now }],
  } = await sql<{ now: Date }>`SELECT date_trunc('milliseconds', now()) AS now`.execute(tx);
  return now;
}

/** The account's newest live conversation nothing was ever written in (no message, title, AP metadata or task). */
export async function newestEmptyConversation(ownerId: string): Promise<ConversationRow | undefined> {
  return db()
    .selectFrom("conversation as c")
    .selectAll("c")
    .where("c.ownerId", "=", ownerId)
    .where("c.deletedAt", "is", null)
    .where("c.messageSeq", "=", 0)
    .where("c.titleSource", "=", "none")
    .where("c.apMetadata", "is", null)
    .where(({ not, exists, selectFrom }) =>
      not(exists(selectFrom("task as t").select(sql.lit(1).as("one")).whereRef("t.conversationId", "=", "c.id"))),
    )
    .orderBy("c.createdAt", "desc")
    .orderBy("c.id", "desc")
    .limit(1)
    .executeTakeFirst();
}
