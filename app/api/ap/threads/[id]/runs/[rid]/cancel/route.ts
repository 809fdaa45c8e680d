import { keyRoute } from "@/lib/http/route";
import { cancelRun } from "@/lib/agent-protocol/cancel-run";
import { apRunParams } from "@/lib/contract/ap";

export const dynamic = "force-dynamic";

/** 202: the cancel is durable from here on; the run reads `interrupted` once the task has stopped. */
export const POST = keyRoute({ params: apRunParams }, async ({ user, params }) => {
  await cancelRun(user.id, params.id, params.rid);
  return new Response(null, { status: 202 });
});
