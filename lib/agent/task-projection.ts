import { getDb } from "@/lib/db/client";
import { createFrame, type Frame } from "@/lib/text/frame";

export const PROJECTED_TASKS = 20;

/**
 * The conversation's tasks as the agent sees them at the start of each run:
 * at most 20, four fields each (id, title, status, updatedAt). Titles are
 * user-derived, so the whole list is framed as untrusted data, by the
 * prompt's frame so it carries the nonce the system prompt names.
 */
export async function taskProjection(
  ownerId: string,
  conversationId: string,
  frame: Frame = createFrame(),
): Promise<string> {
  const tasks = await getDb().task.findMany({
    where: { ownerId, conversationId },
    orderBy: [{ createdAt: "desc" }, { id: "desc" }],
    take: PROJECTED_TASKS,
    select: { id: true, title: true, status: true, updatedAt: true },
  });
  if (tasks.length === 0) return "Background tasks in this conversation: none.";
  const rows = tasks.map((t) => ({ id: t.id, title: t.title, status: t.status, updatedAt: t.updatedAt.toISOString() }));
  return `Background tasks in this conversation (newest first):\n${frame.wrap(JSON.stringify(rows), "task list")}`;
}
