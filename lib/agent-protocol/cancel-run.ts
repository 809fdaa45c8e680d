import { isTerminalStatus } from "@/lib/contract/task";
import { requestCancel } from "@/lib/tasks/request-cancel";
import { loadRun } from "./get-run";

/**
 * Cancels the task behind the run (the ordinary durable cancel: fenced at
 * once, the cancel loop finishes it). A run already finished, or one a later
 * run took over, has nothing of its own to stop: accepted, nothing changes.
 */
export async function cancelRun(ownerId: string, threadId: string, runId: string): Promise<void> {
  const { task, superseded } = await loadRun(ownerId, threadId, runId);
  if (superseded || isTerminalStatus(task.status)) return;
  await requestCancel(ownerId, task.id);
}
