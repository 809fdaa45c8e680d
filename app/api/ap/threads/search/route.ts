import { keyRoute } from "@/lib/api/route";
import { searchThreads } from "@/lib/ap/search-threads";
import { apThreadSearchBody } from "@/lib/contract/ap";

export const dynamic = "force-dynamic";

export const POST = keyRoute({ body: apThreadSearchBody }, async ({ user, body }) => searchThreads(user.id, body));
