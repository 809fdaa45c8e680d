import { keyRoute } from "@/lib/http/route";
import { searchThreads } from "@/lib/agent-protocol/search-threads";
import { apThreadSearchBody } from "@/lib/contract/ap";

export const dynamic = "force-dynamic";

export const POST = keyRoute({ body: apThreadSearchBody }, async ({ user, body }) => searchThreads(user.id, body));
