import { route, json } from "@/lib/http/route";
import { createConversationBody } from "@/lib/contract/schemas";
import { listConversations } from "@/lib/chat/queries";
import { createConversation, openDraftConversation } from "@/lib/chat/create-conversation";

export const dynamic = "force-dynamic";

export const GET = route({}, async ({ user }) => ({ conversations: await listConversations(user.id) }));

export const POST = route({ body: createConversationBody }, async ({ user, body }) => {
  if (body.draft && !body.title?.trim()) {
    const { conversation, created } = await openDraftConversation(user.id);
    return json(conversation, created ? 201 : 200);
  }
  return json(await createConversation(user.id, body.title), 201);
});
