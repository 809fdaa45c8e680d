import type { Driver } from "../lib/drivers/types";

/**
 * The bench's background job that does nothing, so what is timed is Herald's
 * own machinery: claim → submit → claim → step → terminal commit (two leases,
 * the feed events and the terminal message every real task writes).
 * `onStart` sees the moment a worker first touches the task (its submit), by the
 * task's clientRequestId, the one id the adding side knows before the insert returns.
 */
export function noopDriver(onStart: (clientRequestId: string) => void = () => {}): Driver {
  return {
    async submit(task) {
      onStart(task.clientRequestId ?? task.id);
      // (driver, remoteRef) is unique: one handle per task.
      return { remoteRef: `noop:${task.id}` };
    },
    async step() {
      return { finished: true };
    },
    async cancel() {
      return { status: "cancelled" };
    },
  };
}
