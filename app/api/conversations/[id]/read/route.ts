import { route } from "@/lib/http/route";
import { idParams, markReadBody } from "@/lib/contract/schemas";
import { markRead } from "@/lib/chat/mark-read";

export const dynamic = "force-dynamic";

/** Moves the account's read mark forward to `seq`; answers the conversation with its `unread` count. */
export const POST = route({ params: idParams, body: markReadBody }, async ({ user, params, body }) =>
  markRead(user.id, params.id, body.seq),
);
