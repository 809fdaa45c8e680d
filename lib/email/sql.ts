import type { DB } from "@/lib/db/generated/kysely.ts";
import { db, prepared, type Executor, type Tx } from "@/lib/db/kysely";
import { fairPick } from "@/lib/limits/fair-claim-sql";
import { wakeWorkers } from "@/lib/events/emit";
import type { EmailNoticeMode } from "@/lib/contract/settings";
import { literals } from "@/lib/db/sql-list";
import { sql, type UpdateObject } from "kysely";
import { EMAIL_CLAIMABLE, type EmailPatch, type EmailState } from "./state";

/**
 * Every statement of the email outbox on the notice row. The decisions and the
 * transition table are in ./state.ts; this file claims rows, fences writes
 * with the lease and stores what was decided.
 *
 * Fence for every write after a claim: emailLeaseToken = the claim's token AND
 * emailLeaseUntil > clock_timestamp() AND emailState as expected. A miss means
 * the lease expired and another worker may own the row: the result is dropped.
 */

export const EMAIL_LOOP = "email";

export interface EmailFence {
  id: string;
  token: string;
}

/**
 * E1: queue a freshly written notice if its account wants it and its address is verified (same transaction as the
 * notice).
 */
export async function queueNoticeEmailSql(
  tx: Executor,
  noticeId: string,
  ownerId: string,
  modes: EmailNoticeMode[],
): Promise<boolean> {
  if (modes.length === 0) return false;
  // A template: it runs with every notice (lib/notify/sql.ts says why).
  const { rows } = await sql<{ id: string }>`
    UPDATE "notice" SET "emailState" = 'pending', "emailNextAt" = now()
    WHERE id = ${noticeId} AND "emailState" = 'none'
      AND EXISTS (SELECT 1 FROM "user" u
                  WHERE u.id = ${ownerId} AND u."emailNotices" = ANY(${modes}::text[]) AND u."emailVerified")
    RETURNING id`.execute(tx);
  if (rows.length > 0) await wakeWorkers(tx, EMAIL_LOOP);
  return rows.length > 0;
}

const CLAIMABLE_LIST = literals(EMAIL_CLAIMABLE);

function due(alias: string) {
  const c = sql.raw(alias);
  // Repeats notice_email_due_idx's WHERE so the planner can use it.
  return sql`${c}."emailState" IN ${CLAIMABLE_LIST}
    AND (${c}."emailNextAt" IS NULL OR ${c}."emailNextAt" <= now())
    AND (${c}."emailLeaseUntil" IS NULL OR ${c}."emailLeaseUntil" < now())`;
}

/** The claim statement (exported for EXPLAIN in tests). Fair across accounts (lib/limits/fair-claim-sql.ts). */
export function claimEmailSql(workerId: string, limit: number, leaseMs: number) {
  const pick = fairPick({
    table: "notice",
    due,
    order: sql`c."emailNextAt" NULLS FIRST, c.id`,
    held: sql`h."emailLeaseToken" IS NOT NULL AND h."emailLeaseUntil" > now()`,
    limit,
  });
  return sql<EmailFence>`${prepared}
    UPDATE "notice" n
    SET "emailLeaseOwner" = ${workerId}, "emailLeaseToken" = gen_random_uuid()::text,
        "emailLeaseUntil" = now() + make_interval(secs => ${leaseMs / 1000})
    WHERE n.id IN (${pick})
    RETURNING n.id, n."emailLeaseToken" AS token`;
}

export async function claimEmailLeases(workerId: string, limit: number, leaseMs: number): Promise<EmailFence[]> {
  if (limit <= 0) return [];
  return (await claimEmailSql(workerId, limit, leaseMs).execute(db())).rows;
}

/** Milliseconds until the earliest scheduled row is due (E5 waits and backoffs), null when none. */
export async function nextEmailDueMs(): Promise<number | null> {
  const row = await db()
    .selectFrom("notice")
    .select(sql<number | null>`(extract(epoch FROM (min("emailNextAt") - now())) * 1000)::float8`.as("ms"))
    .where("emailState", "in", CLAIMABLE_LIST)
    .executeTakeFirst();
  return row?.ms === null || row?.ms === undefined ? null : Math.max(0, row.ms);
}

/** A claimed notice with what the decision and the message need, read under the row lock. */
export type LockedEmail = NonNullable<Awaited<ReturnType<typeof lockClaimedEmail>>>;

/**
 * The claimed notice with its account (null columns: the account is gone), its task and whether its conversation
 * still lives, if the claim still holds in one of `states`.
 */
export async function lockClaimedEmail(tx: Tx, fence: EmailFence, states: readonly EmailState[] = EMAIL_CLAIMABLE) {
  const row = await tx
    .selectFrom("notice as n")
    .leftJoin("user as u", "u.id", "n.ownerId")
    .leftJoin("task as t", "t.id", "n.taskId")
    .leftJoin("conversation as c", (j) => j.onRef("c.id", "=", "n.conversationId").onRef("c.ownerId", "=", "n.ownerId"))
    .select(["n.id", "n.taskId", "n.conversationId", "n.ownerId", "n.key", "n.outcome", "n.text", "n.createdAt"])
    .select(["n.emailState", "n.emailAttempts", "n.emailError", sql<Date>`clock_timestamp()`.as("dbNow")])
    .select(["u.emailNotices", "u.presenceAt", "u.email", "u.emailVerified", "u.name as userName", "u.language"])
    .select(["u.timeZone", "t.title as taskTitle", "t.deliveryMode", "t.dueAt"])
    .select(sql<boolean>`(c.id IS NOT NULL AND c."deletedAt" IS NULL)`.as("conversationLive"))
    .where("n.id", "=", fence.id)
    .where("n.emailLeaseToken", "=", fence.token)
    .where("n.emailLeaseUntil", ">", sql<Date>`clock_timestamp()`)
    .where((eb) => eb("n.emailState", "=", eb.fn.any(sql<string[]>`${[...states]}::text[]`)))
    .forUpdate("n")
    .executeTakeFirst();
  return row ?? null;
}

/** Stores a decision; the caller holds the row lock from lockClaimedEmail, the token fences it again. */
export async function applyEmailPatch(tx: Tx, fence: EmailFence, patch: EmailPatch): Promise<boolean> {
  const columns = emailColumns(patch);
  if (Object.values(columns).every((v) => v === undefined)) return true;
  const { numUpdatedRows } = await tx
    .updateTable("notice")
    .set(columns)
    .where("id", "=", fence.id)
    .where("emailLeaseToken", "=", fence.token)
    .where("emailLeaseUntil", ">", sql<Date>`clock_timestamp()`)
    .executeTakeFirstOrThrow();
  return numUpdatedRows === 1n;
}

function emailColumns(patch: EmailPatch): UpdateObject<DB, "notice"> {
  const { emailState, emailAttempts, emailError, sent, nextAt, nextInMs, releaseLease } = patch;
  const nextEmailAt =
    nextAt !== undefined
      ? { emailNextAt: nextAt }
      : nextInMs === null
        ? { emailNextAt: null }
        : nextInMs !== undefined
          ? { emailNextAt: sql<Date>`clock_timestamp() + make_interval(secs => ${nextInMs / 1000})` }
          : {};
  return {
    emailState,
    emailAttempts,
    emailError,
    ...(sent ? { emailSentAt: sql<Date>`clock_timestamp()` } : {}),
    ...nextEmailAt,
    ...(releaseLease ? { emailLeaseOwner: null, emailLeaseToken: null, emailLeaseUntil: null } : {}),
  };
}

/** The unsubscribe link: the account stops all notice email, and its queued ones stop too. */
export async function setEmailOff(userId: string): Promise<boolean> {
  const { numUpdatedRows } = await db()
    .updateTable("user")
    .set({ emailNotices: "off", updatedAt: sql<Date>`now()` })
    .where("id", "=", userId)
    .executeTakeFirstOrThrow();
  return numUpdatedRows === 1n;
}
