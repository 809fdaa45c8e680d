import { keyRoute } from "@/lib/api/route";
import { createThread } from "@/lib/ap/create-thread";
import { apThreadCreateBody } from "@/lib/contract/ap";

export const dynamic = "force-dynamic";

export const POST = keyRoute({ body: apThreadCreateBody }, async ({ user, body }) => createThread(user.id, body));
