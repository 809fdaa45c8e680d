import { confirmPassword } from "@/lib/auth/account-guard";
import { getDb } from "@/lib/db/client";
import { TERMINAL_STATUSES } from "@/lib/contract/task";
import { TERMINAL_SQL } from "@/lib/tasks/sql";
import { notifySessionEnded } from "@/lib/events/session-liveness";
import { cancelConversationRuns } from "@/lib/runs/sql";
import { deadLetterConversation } from "@/lib/notify/sql";
import { fenceCancel } from "@/lib/tasks/request-cancel";

/**
 * Deletes an account (Settings → Delete account; the password was checked by the
 * caller). One transaction, in the lock order every other writer uses (runs →
 * tasks → conversations → user):
 *
 * - every queued chat turn is cancelled and every active task gets the cancel
 *   fence, so the cancel loop stops it (remote ones too) the usual way;
 * - what the person wrote and received is removed: messages, publications,
 *   notices (no email goes out any more), chat turns, the feed log, AP runs, API keys,
 *   share links, finished tasks and their steps, sessions, the password and
 *   any reset tokens;
 * - what remains is a tombstone the loops can still write through while the
 *   fenced tasks wind down: the user row with its name, email and settings
 *   cleared (the address is free for a new sign-up), deleted conversations
 *   with no title, and the fenced task rows with no title or prompt. Their
 *   late facts are dropped because the conversations are gone (skipIfGone).
 */
export async function deleteAccount(userId: string): Promise<void> {
  await getDb().$transaction(
    async (tx) => {
      await tx.$queryRaw`SELECT id FROM "run" WHERE "ownerId" = ${userId} ORDER BY id FOR UPDATE`;
      await tx.$queryRaw`SELECT id FROM "task" WHERE "ownerId" = ${userId} ORDER BY id FOR UPDATE`;
      const conversations = await tx.$queryRaw<{ id: string }[]>`
        SELECT id FROM "conversation" WHERE "ownerId" = ${userId} ORDER BY id FOR UPDATE`;
      await tx.$queryRaw`SELECT id FROM "user" WHERE id = ${userId} FOR UPDATE`;

      for (const c of conversations) {
        await cancelConversationRuns(tx, c.id);
        await deadLetterConversation(tx, userId, c.id);
      }
      const active = await tx.task.findMany({
        where: { ownerId: userId, status: { notIn: [...TERMINAL_STATUSES] } },
        select: { id: true },
      });
      for (const t of active) await fenceCancel(tx, userId, t.id);

      await tx.$executeRaw`
        UPDATE "conversation" SET "deletedAt" = COALESCE("deletedAt", now()), "updatedAt" = now(), title = '', "apMetadata" = NULL
        WHERE "ownerId" = ${userId}`;
      await tx.$executeRaw`DELETE FROM "message" WHERE "ownerId" = ${userId}`;
      await tx.$executeRaw`DELETE FROM "publication" WHERE "ownerId" = ${userId}`;
      await tx.$executeRaw`DELETE FROM "notice" WHERE "ownerId" = ${userId}`;
      await tx.$executeRaw`DELETE FROM "report_share" WHERE "ownerId" = ${userId}`;
      await tx.$executeRaw`DELETE FROM "ap_run" WHERE "ownerId" = ${userId}`;
      await tx.$executeRaw`DELETE FROM "api_key" WHERE "ownerId" = ${userId}`;
      await tx.$executeRaw`
        DELETE FROM "task_step" WHERE "taskId" IN (
          SELECT id FROM "task" WHERE "ownerId" = ${userId} AND status IN (${TERMINAL_SQL}))`;
      await tx.$executeRaw`
        DELETE FROM "task" WHERE "ownerId" = ${userId} AND status IN (${TERMINAL_SQL})`;
      await tx.$executeRaw`
        UPDATE "task" SET title = '', prompt = '', "pendingUpdates" = NULL, "inputRequest" = NULL, "inputResponse" = NULL,
          "progressText" = NULL, "updatedAt" = now()
        WHERE "ownerId" = ${userId}`;
      // Every run is cancelled or finished by now; a worker still holding one misses its guard and drops it.
      await tx.$executeRaw`DELETE FROM "run" WHERE "ownerId" = ${userId}`;
      await tx.$executeRaw`DELETE FROM "event" WHERE "ownerId" = ${userId}`;
      await tx.$executeRaw`DELETE FROM "verification" WHERE value = ${userId}`;
      await tx.$executeRaw`DELETE FROM "session" WHERE "userId" = ${userId}`;
      await tx.$executeRaw`DELETE FROM "account" WHERE "userId" = ${userId}`;
      await tx.$executeRaw`
        UPDATE "user" SET name = '', email = 'deleted.' || id || '@deleted.invalid', "emailVerified" = false, image = NULL,
          language = NULL, "timeZone" = NULL, "emailNotices" = 'off', "updatedAt" = now()
        WHERE id = ${userId}`;
    },
    { timeout: 60_000 },
  );
  // Open feeds of the account re-check their session now and end.
  await notifySessionEnded(userId).catch((err: unknown) => console.warn("[account] session-ended notify failed", err));
}

/** DELETE /api/account: the password again, then the deletion above. */
export async function deleteOwnAccount(headers: Headers, userId: string, password: string): Promise<void> {
  await confirmPassword(headers, userId, password);
  await deleteAccount(userId);
}
