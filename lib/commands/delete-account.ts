import { confirmPassword } from "@/lib/auth/account-guard";
import { deleteAccountBuckets, deleteUser, lockUser } from "@/lib/auth/sql";
import { emailKey } from "@/lib/auth/throttle";
import { transaction, type Tx } from "@/lib/db/kysely";
import { deleteOwnerApRuns } from "@/lib/agent-protocol/sql";
import { deleteOwnerConversations, deleteOwnerMessages, lockOwnerConversations } from "@/lib/chat/sql";
import { deleteOwnerNotices } from "@/lib/delivery/sql";
import { deleteOwnerEvents } from "@/lib/events/sql";
import { deleteOwnerKeys } from "@/lib/keys/sql";
import { deleteOwnerRuns, lockOwnerRuns } from "@/lib/runs/sql";
import { deleteOwnerShares } from "@/lib/share/sql";
import type { TaskRow } from "@/lib/tasks/sql";
import { deleteOwnerTasks, lockOwnerTasks } from "@/lib/tasks/owner-sql";
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
    await lockOwnerRuns(tx, userId);
    const tasks = await lockOwnerTasks(tx, userId);
    await lockOwnerConversations(tx, userId);
    const email = await lockUser(tx, userId);
    await deleteAccountRows(tx, userId);
    if (email !== undefined) await deleteAccountBuckets(tx, emailKey(email), userId);
    await deleteUser(tx, userId);
    return tasks.filter((t) => !isTerminalStatus(t.status));
  });
  // Open feeds of the account re-check their session now and end.
  await notifySessionEnded(userId).catch((err: unknown) => log("account").warn({ err }, "session-ended notify failed"));
  await cancelRemoteWork(active);
}

/** Herald's rows of the account, children before the rows they name (no foreign keys here, but a reader never sees an orphan). */
async function deleteAccountRows(tx: Tx, userId: string): Promise<void> {
  await deleteOwnerShares(tx, userId);
  await deleteOwnerNotices(tx, userId);
  await deleteOwnerApRuns(tx, userId);
  await deleteOwnerMessages(tx, userId);
  await deleteOwnerRuns(tx, userId);
  await deleteOwnerTasks(tx, userId);
  await deleteOwnerConversations(tx, userId);
  await deleteOwnerEvents(tx, userId);
  await deleteOwnerKeys(tx, userId);
}

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
