import { getDb } from "@/lib/db/client";
import { driverFor } from "@/lib/drivers/registry";
import type { Prisma } from "@/lib/db/generated/client.ts";
import type { PublicTaskDetail } from "@/lib/contract/shapes";
import { toPublicNotice } from "@/lib/contract/notice";
import { ACTIVE_STATUSES, TERMINAL_STATUSES, toPublicTask, type PublicTask } from "@/lib/contract/task";
import { listSources } from "./sources";
import { pendingUpdatesOf, stepUpdatesOf } from "./columns";

export type TaskScope = "active" | "recent" | "all";

const MAX_ACTIVE_LISTED = 200;

export async function listTasks(
  ownerId: string,
  opts: { conversationId?: string; scope?: TaskScope; limit?: number } = {},
): Promise<PublicTask[]> {
  const base: Prisma.TaskWhereInput = {
    ownerId,
    ...(opts.conversationId ? { conversationId: opts.conversationId } : {}),
  };
  const limit = opts.limit ?? 50;
  const find = (status: string[], take: number) =>
    getDb().task.findMany({
      where: { ...base, status: { in: status } },
      orderBy: [{ updatedAt: "desc" }, { id: "desc" }],
      take,
    });
  if (opts.scope === "active") return (await find(ACTIVE_STATUSES, limit)).map(toPublicTask);
  if (opts.scope === "recent") return (await find(TERMINAL_STATUSES, limit)).map(toPublicTask);
  // "all": every active task (a busy account must not push one off the list), then the newest finished ones.
  const [active, recent] = await Promise.all([
    find(ACTIVE_STATUSES, MAX_ACTIVE_LISTED),
    find(TERMINAL_STATUSES, limit),
  ]);
  return [...active, ...recent].map(toPublicTask);
}

export async function getTaskDetail(ownerId: string, id: string): Promise<PublicTaskDetail | null> {
  const db = getDb();
  const task = await db.task.findFirst({ where: { id, ownerId } });
  if (!task) return null;
  const [progress, pubs, notices, steps, sources] = await Promise.all([
    db.message.findMany({
      where: { taskId: id, ownerId, kind: "progress", hidden: false },
      orderBy: { seq: "asc" },
      take: 200,
    }),
    db.publication.findMany({ where: { taskId: id, ownerId }, orderBy: { version: "asc" } }),
    db.notice.findMany({ where: { taskId: id, ownerId }, orderBy: { createdAt: "asc" } }),
    db.taskStep.findMany({
      where: { taskId: id },
      orderBy: { index: "asc" },
      select: { index: true, input: true, createdAt: true },
    }),
    listSources(ownerId, id),
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
    instructions: {
      accepted: driverFor(task.driver)?.acceptsUpdates === true,
      pending: pendingUpdatesOf(task),
      applied: steps.flatMap((s) =>
        stepUpdatesOf(s.input).map((text) => ({ step: s.index, text, at: s.createdAt.toISOString() })),
      ),
    },
    sources,
  };
}
