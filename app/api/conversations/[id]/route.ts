import { route } from "@/lib/api/route";
import { notFound } from "@/lib/errors/api-error";
import { idParams } from "@/lib/contract/schemas";
import { findConversation, listActiveRuns } from "@/lib/chat/queries";
import { deleteConversation } from "@/lib/commands/delete-conversation";

export const dynamic = "force-dynamic";

export const GET = route({ params: idParams }, async ({ user, params }) => {
  const c = await findConversation(user.id, params.id);
  if (!c) throw notFound("Conversation");
  return { ...c, activeRuns: await listActiveRuns(user.id, c.id) };
});

export const DELETE = route({ params: idParams }, async ({ user, params }) => {
  await deleteConversation(user.id, params.id);
});
