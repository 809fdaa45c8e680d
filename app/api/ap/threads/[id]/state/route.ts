import { keyRoute } from "@/lib/http/route";
import { getThreadState } from "@/lib/agent-protocol/get-thread-state";
import { apThreadParams } from "@/lib/contract/ap";

export const dynamic = "force-dynamic";

export const GET = keyRoute({ params: apThreadParams }, async ({ user, params }) => getThreadState(user.id, params.id));
