import { route, json } from "@/lib/http/route";
import { notFound } from "@/lib/errors/api-error";
import { idParams, listMessagesQuery, postMessageBody } from "@/lib/contract/schemas";
import { listMessages, listMessagesBefore } from "@/lib/chat/queries";
import { postMessage } from "@/lib/chat/post-message";

export const dynamic = "force-dynamic";

export const GET = route({ params: idParams, query: listMessagesQuery }, async ({ user, params, query }) => {
  if (query.before !== undefined) {
    const page = await listMessagesBefore(user.id, params.id, query.before, query.limit);
    if (!page) throw notFound("Conversation");
    return page;
  }
  const messages = await listMessages(user.id, params.id, query);
  if (!messages) throw notFound("Conversation");
  return { messages };
});

export const POST = route({ params: idParams, body: postMessageBody }, async ({ user, params, body }) => {
  // A resubmitted clientMessageId gets the same 202 and the first turn's result.
  const { message, run } = await postMessage(user.id, params.id, body);
  return json({ message, run }, 202);
});
