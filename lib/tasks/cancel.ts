import { getDb } from "@/lib/db/client";
import { driverFor } from "@/lib/drivers/registry";
import { terminal } from "./execute";
import { lockCancelGuarded, releaseCancel, type CancelLeasedTask } from "./sql";
import { emitTaskById } from "./emit-task";

/**
 * Cancel loop work: ask the driver to stop, then store the terminal status the
 * driver reports (it may have finished first), guarded by the cancel lease.
 * Failures retry forever with capped backoff; the UI shows attempts and error.
 */
export async function executeCancel(task: CancelLeasedTask, stopping: AbortSignal): Promise<"cancelled" | "retry" | "lost"> {
  const token = task.cancelLeaseToken;
  try {
    const driver = driverFor(task.driver);
    if (!driver) throw new Error(`no driver registered as "${task.driver}"`);
    // Nothing was ever submitted: there is no remote work to stop.
    const snapshot = task.remoteRef ? await driver.cancel(task, stopping) : { status: "cancelled" as const };
    const ok = await getDb().$transaction(async (tx) => {
      if (!(await lockCancelGuarded(tx, task.id, token))) return false;
      await terminal(tx, task.id, snapshot.status, snapshot.error ?? null);
      return true;
    });
    return ok ? "cancelled" : "lost";
  } catch (err) {
    const message = (err as Error)?.message ?? String(err);
    await releaseCancel(task.id, token, message, task.cancelAttempts);
    await getDb().$transaction((tx) => emitTaskById(tx, task.id)).catch(() => {});
    return "retry";
  }
}
