import { keyRoute } from "@/lib/http/route";
import { getThread } from "@/lib/agent-protocol/get-thread";
import { apThreadParams } from "@/lib/contract/ap";

export const dynamic = "force-dynamic";

export const GET = keyRoute({ params: apThreadParams }, async ({ user, params }) => getThread(user.id, params.id));
