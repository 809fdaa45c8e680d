import { getDb } from "@/lib/db/client";
import type { Prisma } from "@/lib/db/generated/client.ts";
import { toPublicNotice, type PublicNotice } from "@/lib/delivery/sync-notices";
import { ACTIVE_STATUSES, TERMINAL_STATUSES, toPublicTask, type PublicTask } from "./public";

export type TaskScope = "active" | "recent" | "all";

export async function listTasks(
  ownerId: string,
  opts: { conversationId?: string; scope?: TaskScope; limit?: number } = {},
): Promise<PublicTask[]> {
  const where: Prisma.TaskWhereInput = { ownerId };
  if (opts.conversationId) where.conversationId = opts.conversationId;
  if (opts.scope === "active") where.status = { in: ACTIVE_STATUSES };
  if (opts.scope === "recent") where.status = { in: TERMINAL_STATUSES };
  const rows = await getDb().task.findMany({
    where,
    orderBy: [{ updatedAt: "desc" }, { id: "desc" }],
    take: opts.limit ?? 50,
  });
  return rows.map(toPublicTask);
}

export interface PublicPublication {
  id: string;
  version: number;
  partial: boolean;
  content: string;
  sha256: string;
  createdAt: string;
}


export interface PublicTaskDetail extends PublicTask {
  progressHistory: { text: string; at: string }[];
  publications: PublicPublication[];
  notices: PublicNotice[];
}

export async function getTaskDetail(ownerId: string, id: string): Promise<PublicTaskDetail | null> {
  const db = getDb();
  const task = await db.task.findFirst({ where: { id, ownerId } });
  if (!task) return null;
  const [progress, pubs, notices] = await Promise.all([
    db.message.findMany({ where: { taskId: id, ownerId, kind: "progress", hidden: false }, orderBy: { seq: "asc" }, take: 200 }),
    db.publication.findMany({ where: { taskId: id, ownerId }, orderBy: { version: "asc" } }),
    db.notice.findMany({ where: { taskId: id, ownerId }, orderBy: { createdAt: "asc" } }),
  ]);
  return {
    ...toPublicTask(task),
    progressHistory: progress.map((m) => ({ text: m.content, at: m.createdAt.toISOString() })),
    publications: pubs.map((p) => ({
      id: p.id,
      version: p.version,
      partial: p.partial,
      content: p.content,
      sha256: p.sha256,
      createdAt: p.createdAt.toISOString(),
    })),
    notices: notices.map(toPublicNotice),
  };
}
