import { confirmPassword } from "@/lib/auth/account-guard";
import { emailKey } from "@/lib/auth/throttle";
import { getDb } from "@/lib/db/client";
import type { Task } from "@/lib/db/generated/client.ts";
import { isTerminalStatus } from "@/lib/contract/task";
import { notifySessionEnded } from "@/lib/events/session-liveness";
import { driverFor } from "@/lib/drivers/registry";
import { publicError } from "@/lib/errors/public";
import { log } from "@/lib/util/log";

// How long the deletion waits for remotes to accept the cancel of the account's running work.
const REMOTE_CANCEL_MS = 10_000;

/**
 * Deletes an account (Settings → Delete account; the password was checked by the
 * caller): every row of it, in one transaction that takes the locks in the order
 * every other writer uses (runs → tasks → conversations → user).
 *
 * Nothing is kept for the loops to wind down through: a worker still working on
 * one of the account's runs or tasks finds the row gone when it commits, so its
 * lease guard misses and it drops the result (no step, message, publication or
 * notice is written: those writes lock the task or conversation first), and a
 * feed event written after this commit has no user row to take its seq from, so
 * none is inserted. An insert that starts something new (a task, a chat turn)
 * joins the live conversation and user rows and finds neither.
 *
 * Remote work of tasks that were still active is cancelled after the commit,
 * once, from the rows as they were (the cancel loop has no row to retry from):
 * an MCP task the remote still lists is also untracked now, and the orphan
 * reaper cancels it if this cancel did not get through.
 */
export async function deleteAccount(userId: string): Promise<void> {
  const active = await getDb().$transaction(
    async (tx) => {
      await tx.$queryRaw`SELECT id FROM "run" WHERE "ownerId" = ${userId} ORDER BY id FOR UPDATE`;
      const tasks = await tx.$queryRaw<Task[]>`SELECT * FROM "task" WHERE "ownerId" = ${userId} ORDER BY id FOR UPDATE`;
      await tx.$queryRaw`SELECT id FROM "conversation" WHERE "ownerId" = ${userId} ORDER BY id FOR UPDATE`;
      const [user] = await tx.$queryRaw<{ email: string }[]>`SELECT email FROM "user" WHERE id = ${userId} FOR UPDATE`;

      // Children before the rows they name (no foreign keys here, but a reader never sees an orphan).
      await tx.$executeRaw`DELETE FROM "task_step" WHERE "taskId" IN (SELECT id FROM "task" WHERE "ownerId" = ${userId})`;
      await tx.$executeRaw`DELETE FROM "report_share" WHERE "ownerId" = ${userId}`;
      await tx.$executeRaw`DELETE FROM "publication" WHERE "ownerId" = ${userId}`;
      await tx.$executeRaw`DELETE FROM "notice" WHERE "ownerId" = ${userId}`;
      await tx.$executeRaw`DELETE FROM "ap_run" WHERE "ownerId" = ${userId}`;
      await tx.$executeRaw`DELETE FROM "message" WHERE "ownerId" = ${userId}`;
      await tx.$executeRaw`DELETE FROM "run" WHERE "ownerId" = ${userId}`;
      await tx.$executeRaw`DELETE FROM "task" WHERE "ownerId" = ${userId}`;
      await tx.$executeRaw`DELETE FROM "conversation" WHERE "ownerId" = ${userId}`;
      await tx.$executeRaw`DELETE FROM "event" WHERE "ownerId" = ${userId}`;
      await tx.$executeRaw`DELETE FROM "api_key" WHERE "ownerId" = ${userId}`;
      // Reset tokens carry the user id as their value.
      await tx.$executeRaw`DELETE FROM "verification" WHERE value = ${userId}`;
      if (user) {
        // Throttle buckets: per address ("email|…", "<bucket>|email|…") and per account ("<what>|<id>").
        const byEmail = emailKey(user.email);
        await tx.$executeRaw`
          DELETE FROM "auth_throttle" WHERE key = ${byEmail} OR key = ANY(
            SELECT key FROM "auth_throttle" WHERE right(key, ${byEmail.length + 1}) = ${`|${byEmail}`} OR right(key, ${userId.length + 1}) = ${`|${userId}`})`;
      }
      await tx.$executeRaw`DELETE FROM "session" WHERE "userId" = ${userId}`;
      await tx.$executeRaw`DELETE FROM "account" WHERE "userId" = ${userId}`;
      await tx.$executeRaw`DELETE FROM "user" WHERE id = ${userId}`;
      return tasks.filter((t) => !isTerminalStatus(t.status));
    },
    { timeout: 60_000 },
  );
  // Open feeds of the account re-check their session now and end.
  await notifySessionEnded(userId).catch((err: unknown) => log("account").warn({ err }, "session-ended notify failed"));
  await cancelRemoteWork(active);
}

async function cancelRemoteWork(tasks: Task[]): Promise<void> {
  const signal = AbortSignal.timeout(REMOTE_CANCEL_MS);
  await Promise.all(
    tasks.map(async (task) => {
      const driver = driverFor(task.driver);
      // Nothing was ever submitted: there is no remote work to stop (unless the driver can look for it).
      if (!driver || !(task.remoteRef || driver.findsUnstoredWork)) return;
      await driver
        .cancel(task, signal)
        .catch((err: unknown) => publicError(err, `account deletion: cancel of ${task.id}`));
    }),
  );
}

/** DELETE /api/account: the password again, then the deletion above. */
export async function deleteOwnAccount(headers: Headers, userId: string, password: string): Promise<void> {
  await confirmPassword(headers, userId, password);
  await deleteAccount(userId);
}
