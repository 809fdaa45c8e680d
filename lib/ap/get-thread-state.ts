import { getDb } from "@/lib/db/client";
import type { ApMessage, ApThreadState } from "@/lib/contract/ap";
import { apMessage } from "./project";
import { ownThread } from "./thread-access";

/**
 * The thread as LangGraph state: `values.messages` replays each run's input
 * (human) and, for each task that succeeded, its final report (ai) at the time
 * it was published — so when the last run succeeded, the last message is its
 * report, which is what a deepagents supervisor reads.
 */
export async function getThreadState(ownerId: string, threadId: string): Promise<ApThreadState> {
  const c = await ownThread(ownerId, threadId);
  const db = getDb();
  const runs = await db.apRun.findMany({ where: { conversationId: threadId, ownerId }, orderBy: { createdAt: "asc" } });
  const taskIds = [...new Set(runs.map((r) => r.taskId))];
  const succeeded = await db.task.findMany({ where: { id: { in: taskIds }, ownerId, status: "succeeded" }, select: { id: true } });
  const finals = await db.publication.findMany({
    where: { taskId: { in: succeeded.map((t) => t.id) }, ownerId, partial: false },
    orderBy: { createdAt: "asc" },
  });
  const timeline: { at: Date; message: ApMessage }[] = [
    ...runs.map((r) => ({ at: r.createdAt, message: apMessage("human", r.input, r.id) })),
    ...finals.map((p) => ({ at: p.createdAt, message: apMessage("ai", p.content, p.id) })),
  ].sort((a, b) => a.at.getTime() - b.at.getTime());
  const last = runs.at(-1);
  return {
    values: { messages: timeline.map((t) => t.message) },
    next: [],
    tasks: [],
    checkpoint: { thread_id: threadId, checkpoint_ns: "", checkpoint_id: last?.id ?? threadId },
    parent_checkpoint: null,
    metadata: {},
    created_at: (last?.createdAt ?? c.createdAt).toISOString(),
  };
}
