import { getDb, queryRows, type SqlTx, type Tx } from "@/lib/db/client";
import { Prisma } from "@/lib/db/generated/client.ts";
import { fairPick } from "@/lib/limits/fair-claim";
import { wakeWorkers } from "@/lib/events/emit";
import type { EmailNoticeMode } from "@/lib/contract/settings";
import { sqlList } from "@/lib/db/sql-list";
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

/** E1: queue a freshly written notice if its account wants it and its address is verified (same transaction as the notice). */
export async function queueNoticeEmailSql(
  tx: SqlTx,
  noticeId: string,
  ownerId: string,
  modes: EmailNoticeMode[],
): Promise<boolean> {
  if (modes.length === 0) return false;
  const n = await tx.$executeRaw`
    UPDATE "notice" SET "emailState" = 'pending', "emailNextAt" = now()
    WHERE id = ${noticeId} AND "emailState" = 'none'
      AND EXISTS (SELECT 1 FROM "user" u WHERE u.id = ${ownerId} AND u."emailNotices" = ANY(${modes}::text[]) AND u."emailVerified")`;
  if (n > 0) await wakeWorkers(tx, EMAIL_LOOP);
  return n > 0;
}

const CLAIMABLE_SQL = sqlList(EMAIL_CLAIMABLE);

function due(alias: string): Prisma.Sql {
  const c = Prisma.raw(alias);
  // Repeats notice_email_due_idx's WHERE so the planner can use it.
  return Prisma.sql`${c}."emailState" IN (${CLAIMABLE_SQL})
    AND (${c}."emailNextAt" IS NULL OR ${c}."emailNextAt" <= now())
    AND (${c}."emailLeaseUntil" IS NULL OR ${c}."emailLeaseUntil" < now())`;
}

/** The claim statement (exported for EXPLAIN in tests). Fair across accounts (lib/limits/fair-claim.ts). */
export function claimEmailSql(workerId: string, limit: number, leaseMs: number): Prisma.Sql {
  const pick = fairPick({
    table: "notice",
    due,
    order: Prisma.sql`c."emailNextAt" NULLS FIRST, c.id`,
    held: Prisma.sql`h."emailLeaseToken" IS NOT NULL AND h."emailLeaseUntil" > now()`,
    limit,
  });
  return Prisma.sql`
    UPDATE "notice" n
    SET "emailLeaseOwner" = ${workerId}, "emailLeaseToken" = gen_random_uuid()::text,
        "emailLeaseUntil" = now() + make_interval(secs => ${leaseMs / 1000})
    WHERE n.id IN (${pick})
    RETURNING n.id, n."emailLeaseToken" AS token`;
}

export async function claimEmailLeases(workerId: string, limit: number, leaseMs: number): Promise<EmailFence[]> {
  if (limit <= 0) return [];
  return queryRows<EmailFence>(claimEmailSql(workerId, limit, leaseMs));
}

/** Milliseconds until the earliest scheduled row is due (E5 waits and backoffs), null when none. */
export async function nextEmailDueMs(): Promise<number | null> {
  const [row] = await getDb().$queryRaw<{ ms: number | null }[]>`
    SELECT (extract(epoch FROM (min("emailNextAt") - now())) * 1000)::float8 AS ms
    FROM "notice" WHERE "emailState" IN (${CLAIMABLE_SQL})`;
  return row?.ms === null || row?.ms === undefined ? null : Math.max(0, row.ms);
}

/** A claimed notice with what the decision and the message need, read under the row lock. */
export interface LockedEmail {
  id: string;
  taskId: string;
  conversationId: string;
  ownerId: string;
  key: string;
  outcome: string | null;
  text: string;
  createdAt: Date;
  emailState: EmailState;
  emailAttempts: number;
  emailError: string | null;
  dbNow: Date;
  /** null: the account is gone. */
  emailNotices: string | null;
  presenceAt: Date | null;
  email: string | null;
  /** null: the account is gone. */
  emailVerified: boolean | null;
  userName: string | null;
  language: string | null;
  timeZone: string | null;
  taskTitle: string | null;
  deliveryMode: string | null;
  dueAt: Date | null;
  conversationLive: boolean;
}

export async function lockClaimedEmail(
  tx: Tx,
  fence: EmailFence,
  states: readonly EmailState[] = EMAIL_CLAIMABLE,
): Promise<LockedEmail | null> {
  const rows = await tx.$queryRaw<LockedEmail[]>`
    SELECT n.id, n."taskId", n."conversationId", n."ownerId", n.key, n.outcome, n.text, n."createdAt",
           n."emailState", n."emailAttempts", n."emailError", clock_timestamp() AS "dbNow",
           u."emailNotices", u."presenceAt", u.email, u."emailVerified", u.name AS "userName", u.language, u."timeZone",
           t.title AS "taskTitle", t."deliveryMode", t."dueAt",
           (c.id IS NOT NULL AND c."deletedAt" IS NULL) AS "conversationLive"
    FROM "notice" n
    LEFT JOIN "user" u ON u.id = n."ownerId"
    LEFT JOIN "task" t ON t.id = n."taskId"
    LEFT JOIN "conversation" c ON c.id = n."conversationId" AND c."ownerId" = n."ownerId"
    WHERE n.id = ${fence.id}
      AND n."emailLeaseToken" = ${fence.token}
      AND n."emailLeaseUntil" > clock_timestamp()
      AND n."emailState" = ANY(${[...states]}::text[])
    FOR UPDATE OF n`;
  return rows[0] ?? null;
}

/** Stores a decision; the caller holds the row lock from lockClaimedEmail, the token fences it again. */
export async function applyEmailPatch(tx: Tx, fence: EmailFence, patch: EmailPatch): Promise<boolean> {
  const set: Prisma.Sql[] = [];
  if (patch.emailState !== undefined) set.push(Prisma.sql`"emailState" = ${patch.emailState}`);
  if (patch.emailAttempts !== undefined) set.push(Prisma.sql`"emailAttempts" = ${patch.emailAttempts}`);
  if (patch.emailError !== undefined) set.push(Prisma.sql`"emailError" = ${patch.emailError}`);
  if (patch.sent) set.push(Prisma.sql`"emailSentAt" = clock_timestamp()`);
  if (patch.nextAt !== undefined) set.push(Prisma.sql`"emailNextAt" = ${patch.nextAt}`);
  else if (patch.nextInMs === null) set.push(Prisma.sql`"emailNextAt" = NULL`);
  else if (patch.nextInMs !== undefined) {
    set.push(Prisma.sql`"emailNextAt" = clock_timestamp() + make_interval(secs => ${patch.nextInMs / 1000})`);
  }
  if (patch.releaseLease)
    set.push(Prisma.sql`"emailLeaseOwner" = NULL, "emailLeaseToken" = NULL, "emailLeaseUntil" = NULL`);
  if (set.length === 0) return true;
  const n = await tx.$executeRaw`
    UPDATE "notice" SET ${Prisma.join(set, ", ")}
    WHERE id = ${fence.id} AND "emailLeaseToken" = ${fence.token} AND "emailLeaseUntil" > clock_timestamp()`;
  return n === 1;
}

/** The unsubscribe link: the account stops all notice email, and its queued ones stop too. */
export async function setEmailOff(userId: string): Promise<boolean> {
  const n = await getDb()
    .$executeRaw`UPDATE "user" SET "emailNotices" = 'off', "updatedAt" = now() WHERE id = ${userId}`;
  return n === 1;
}
