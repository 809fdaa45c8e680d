import { getDb } from "@/lib/db/client";
import type { Conversation } from "@/lib/db/generated/client.ts";
import { notFound } from "@/lib/errors/api-error";

/** The caller's live thread (a conversation of theirs), or 404: another account's thread is not found. */
export async function ownThread(ownerId: string, id: string): Promise<Conversation> {
  const c = await getDb().conversation.findFirst({ where: { id, ownerId, deletedAt: null } });
  if (!c) throw notFound("Thread");
  return c;
}

/** The thread's tasks in the order their runs started (oldest first). */
export async function threadTasks(ownerId: string, conversationId: string) {
  const runs = await getDb().apRun.findMany({
    where: { ownerId, conversationId },
    orderBy: { createdAt: "asc" },
    select: { taskId: true },
  });
  const ids = [...new Set(runs.map((r) => r.taskId))];
  const tasks = await getDb().task.findMany({ where: { ownerId, id: { in: ids } } });
  return ids.map((id) => tasks.find((t) => t.id === id)).filter((t) => t !== undefined);
}
