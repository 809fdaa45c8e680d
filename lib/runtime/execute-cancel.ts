import { driverFor } from "@/lib/drivers/registry";
import { publicError } from "@/lib/errors/public";
import { terminal } from "@/lib/runtime/execute-task";
import { stoppedByDeadline } from "@/lib/delivery/sync-notices";
import type { CancelLeasedTask } from "@/lib/tasks/sql";
import { lockCancelGuarded, releaseCancel } from "@/lib/tasks/cancel-sql";
import { emitTaskById } from "@/lib/tasks/emit-task";
import { transactionWithEvents } from "@/lib/events/emit";

/**
 * Cancel loop work: ask the driver to stop, then store the terminal status the
 * driver reports (it may have finished first), guarded by the cancel lease.
 * Failures retry forever with capped backoff; the UI shows attempts and error.
 */
export async function executeCancel(
  task: CancelLeasedTask,
  stopping: AbortSignal,
): Promise<"cancelled" | "retry" | "lost"> {
  const token = task.cancelLeaseToken;
  try {
    const driver = driverFor(task.driver);
    if (!driver) throw new Error(`no driver registered as "${task.driver}"`);
    // Nothing was ever submitted: there is no remote work to stop (unless the driver can look for it).
    const snapshot =
      task.remoteRef || driver.findsUnstoredWork
        ? await driver.cancel(task, stopping)
        : { status: "cancelled" as const };
    const error = snapshot.error ? publicError(snapshot.error, `cancel ${task.id}`, "remote_failed") : null;
    const ok = await transactionWithEvents(async (tx) => {
      if (!(await lockCancelGuarded(tx, task.id, token))) return false;
      // A stop the due loop asked for is the deadline's doing, not the user's cancel.
      const status = snapshot.status === "cancelled" && stoppedByDeadline(task) ? "deadline_exceeded" : snapshot.status;
      await terminal(tx, task.id, status, error);
      return true;
    });
    return ok ? "cancelled" : "lost";
  } catch (err) {
    await releaseCancel(task.id, token, publicError(err, `cancel ${task.id}`), task.cancelAttempts);
    await transactionWithEvents((tx) => emitTaskById(tx, task.id)).catch(() => {});
    return "retry";
  }
}
