import { keyRoute } from "@/lib/http/route";
import { createThread } from "@/lib/agent-protocol/create-thread";
import { apThreadCreateBody } from "@/lib/contract/ap";

export const dynamic = "force-dynamic";

export const POST = keyRoute({ body: apThreadCreateBody }, async ({ user, body }) => createThread(user.id, body));
