import { route, json } from "@/lib/http/route";
import { isId, listTasksQuery, startTaskBody } from "@/lib/contract/schemas";
import { listTasks } from "@/lib/tasks/queries";
import { startTask } from "@/lib/tasks/start-task";
import { findConversation } from "@/lib/chat/queries";
import { notFound } from "@/lib/errors/api-error";

export const dynamic = "force-dynamic";

export const GET = route({ query: listTasksQuery }, async ({ user, query }) => {
  if (query.conversationId) {
    // Not an id → no such conversation, without asking the database.
    if (!isId(query.conversationId) || !(await findConversation(user.id, query.conversationId)))
      throw notFound("Conversation");
  }
  return { tasks: await listTasks(user.id, query) };
});

export const POST = route({ body: startTaskBody }, async ({ user, body }) => {
  const { task } = await startTask({ ownerId: user.id, ...body });
  return json({ task }, 202);
});
