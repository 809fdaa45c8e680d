import { confirmPassword } from "@/lib/auth/account-guard";
import { deleteAccountBuckets } from "@/lib/auth/sql";
import { emailKey } from "@/lib/auth/throttle";
import { transaction, type Tx } from "@/lib/db/kysely";
import type { TaskRow } from "@/lib/tasks/sql";
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
  const active = await transaction(async (tx) => {
    await tx.selectFrom("run").select("id").where("ownerId", "=", userId).orderBy("id").forUpdate().execute();
    const tasks = await tx
      .selectFrom("task")
      .selectAll()
      .where("ownerId", "=", userId)
      .orderBy("id")
      .forUpdate()
      .execute();
    await tx.selectFrom("conversation").select("id").where("ownerId", "=", userId).orderBy("id").forUpdate().execute();
    const user = await tx.selectFrom("user").select("email").where("id", "=", userId).forUpdate().executeTakeFirst();
    await deleteAccountRows(tx, userId);
    if (user) await deleteAccountBuckets(tx, emailKey(user.email), userId);
    await tx.deleteFrom("session").where("userId", "=", userId).execute();
    await tx.deleteFrom("account").where("userId", "=", userId).execute();
    await tx.deleteFrom("user").where("id", "=", userId).execute();
    return tasks.filter((t) => !isTerminalStatus(t.status));
  });
  // Open feeds of the account re-check their session now and end.
  await notifySessionEnded(userId).catch((err: unknown) => log("account").warn({ err }, "session-ended notify failed"));
  await cancelRemoteWork(active);
}

/** Herald's rows of the account, children before the rows they name (no foreign keys here, but a reader never sees an orphan). */
async function deleteAccountRows(tx: Tx, userId: string): Promise<void> {
  await tx
    .deleteFrom("task_step")
    .where("taskId", "in", tx.selectFrom("task").select("id").where("ownerId", "=", userId))
    .execute();
  for (const table of OWNED_TABLES) await tx.deleteFrom(table).where("ownerId", "=", userId).execute();
  // Reset tokens carry the user id as their value.
  await tx.deleteFrom("verification").where("value", "=", userId).execute();
}

const OWNED_TABLES = [
  "report_share",
  "publication",
  "notice",
  "ap_run",
  "message",
  "run",
  "task",
  "conversation",
  "event",
  "api_key",
] as const;

async function cancelRemoteWork(tasks: TaskRow[]): Promise<void> {
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
