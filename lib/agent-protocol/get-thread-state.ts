import { getDb } from "@/lib/db/client";
import type { ApCheckpoint, ApMessage, ApThreadState } from "@/lib/contract/ap";
import { isTerminalStatus } from "@/lib/contract/task";
import { apMessage } from "./project";
import { ownThread } from "./thread-access";

interface Step {
  at: Date;
  /** The checkpoint this message makes: the run's id (its input) or the publication's (its report). */
  id: string;
  message: ApMessage;
  source: "input" | "loop";
  runId: string;
  /** The task behind the run is still working after this step. */
  pending: boolean;
}

/**
 * The thread's history as durable rows tell it: each run's input (human, from
 * its ap_run row) and, for each task that succeeded, its final report (ai, its
 * final publication) at the time it was published — so when the last run
 * succeeded, the last message is its report, which is what a deepagents
 * supervisor reads. Each of these is one checkpoint, oldest first.
 */
export async function threadSteps(ownerId: string, threadId: string): Promise<Step[]> {
  const db = getDb();
  const runs = await db.apRun.findMany({
    where: { conversationId: threadId, ownerId },
    orderBy: [{ createdAt: "asc" }, { id: "asc" }],
  });
  const taskIds = [...new Set(runs.map((r) => r.taskId))];
  const tasks = await db.task.findMany({ where: { id: { in: taskIds }, ownerId }, select: { id: true, status: true } });
  const statusOf = new Map(tasks.map((t) => [t.id, t.status]));
  const succeeded = tasks.filter((t) => t.status === "succeeded").map((t) => t.id);
  const finals = await db.publication.findMany({
    where: { taskId: { in: succeeded }, ownerId, partial: false },
    orderBy: [{ createdAt: "asc" }, { id: "asc" }],
  });
  const lastRunOf = new Map<string, string>();
  for (const r of runs) lastRunOf.set(r.taskId, r.id);
  return [
    ...runs.map((r) => ({
      at: r.createdAt,
      id: r.id,
      message: apMessage("human", r.input, r.id),
      source: "input" as const,
      runId: r.id,
      pending: !isTerminalStatus(statusOf.get(r.taskId) ?? "succeeded"),
    })),
    ...finals.map((p) => ({
      at: p.createdAt,
      id: p.id,
      message: apMessage("ai", p.content, p.id),
      source: "loop" as const,
      runId: lastRunOf.get(p.taskId) ?? p.taskId,
      pending: false,
    })),
  ].sort((a, b) => a.at.getTime() - b.at.getTime());
}

const checkpointOf = (threadId: string, id: string): ApCheckpoint => ({
  thread_id: threadId,
  checkpoint_ns: "",
  checkpoint_id: id,
});

/** The state after steps[0..i]; an empty thread's state is its own id's checkpoint with no messages. */
export function stateAt(threadId: string, steps: Step[], i: number, createdAt: Date): ApThreadState {
  const step = steps[i];
  const pending = step ? step.pending && i === steps.length - 1 : false;
  return {
    values: { messages: steps.slice(0, i + 1).map((s) => s.message) },
    next: pending ? ["research"] : [],
    tasks: [],
    checkpoint: checkpointOf(threadId, step?.id ?? threadId),
    parent_checkpoint: i > 0 ? checkpointOf(threadId, steps[i - 1].id) : null,
    metadata: step ? { source: step.source, step: i, run_id: step.runId, thread_id: threadId } : {},
    created_at: (step?.at ?? createdAt).toISOString(),
  };
}

export async function getThreadState(ownerId: string, threadId: string): Promise<ApThreadState> {
  const c = await ownThread(ownerId, threadId);
  const steps = await threadSteps(ownerId, threadId);
  return stateAt(threadId, steps, steps.length - 1, c.createdAt);
}
