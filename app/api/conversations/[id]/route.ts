import { route } from "@/lib/http/route";
import { notFound } from "@/lib/errors/api-error";
import { idParams, updateConversationBody } from "@/lib/contract/schemas";
import { findConversation, listActiveRuns } from "@/lib/chat/queries";
import { updateConversation } from "@/lib/chat/update-conversation";
import { deleteConversation } from "@/lib/commands/delete-conversation";

export const dynamic = "force-dynamic";

export const GET = route({ params: idParams }, async ({ user, params }) => {
  const c = await findConversation(user.id, params.id);
  if (!c) throw notFound("Conversation");
  return { ...c, activeRuns: await listActiveRuns(user.id, c.id) };
});

/** Rename (`title`) and pin (`pinned`). */
export const PATCH = route({ params: idParams, body: updateConversationBody }, async ({ user, params, body }) =>
  updateConversation(user.id, params.id, body),
);

export const DELETE = route({ params: idParams }, async ({ user, params }) => {
  await deleteConversation(user.id, params.id);
});
