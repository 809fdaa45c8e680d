import { keyRoute } from "@/lib/http/route";
import { joinRun } from "@/lib/agent-protocol/join-run";
import { apRunParams } from "@/lib/contract/ap";

export const dynamic = "force-dynamic";

export const GET = keyRoute({ params: apRunParams }, async ({ req, user, params }) =>
  joinRun(user.id, params.id, params.rid, req.signal),
);
