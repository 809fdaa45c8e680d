import { keyRoute } from "@/lib/http/route";
import { getRun } from "@/lib/agent-protocol/get-run";
import { apRunParams } from "@/lib/contract/ap";

export const dynamic = "force-dynamic";

export const GET = keyRoute({ params: apRunParams }, async ({ user, params }) =>
  getRun(user.id, params.id, params.rid),
);
