import { getDb } from "@/lib/db/client";
import type { ApRun } from "@/lib/contract/ap";
import { notFound } from "@/lib/errors/api-error";
import { toApRun } from "./project";

/** The run with its task; a run a later `interrupt` run took over reads `interrupted`. */
export async function loadRun(ownerId: string, threadId: string, runId: string) {
  const db = getDb();
  const row = await db.apRun.findFirst({ where: { id: runId, conversationId: threadId, ownerId } });
  if (!row) throw notFound("Run");
  const task = await db.task.findUniqueOrThrow({ where: { id: row.taskId } });
  const newer = await db.apRun.count({ where: { taskId: row.taskId, createdAt: { gt: row.createdAt } } });
  return { row, task, superseded: newer > 0 };
}

export async function getRun(ownerId: string, threadId: string, runId: string): Promise<ApRun> {
  const { row, task, superseded } = await loadRun(ownerId, threadId, runId);
  return toApRun(row, task, superseded);
}

export async function listRuns(ownerId: string, threadId: string, limit = 10, offset = 0): Promise<ApRun[]> {
  const db = getDb();
  // Every run of the thread (a thread holds a handful): whether a run was taken over depends on the newer ones.
  const all = await db.apRun.findMany({ where: { conversationId: threadId, ownerId }, orderBy: { createdAt: "desc" } });
  const newest = new Map<string, Date>();
  for (const r of all) if (!newest.has(r.taskId)) newest.set(r.taskId, r.createdAt);
  const page = all.slice(offset, offset + limit);
  const tasks = await db.task.findMany({ where: { id: { in: page.map((r) => r.taskId) }, ownerId } });
  return page.map((r) =>
    toApRun(
      r,
      tasks.find((t) => t.id === r.taskId)!,
      newest.get(r.taskId)! > r.createdAt,
    ),
  );
}
