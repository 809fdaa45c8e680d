import { keyRoute } from "@/lib/http/route";
import { getThreadHistory } from "@/lib/agent-protocol/get-thread-history";
import { apHistoryBody, apHistoryQuery, apThreadParams } from "@/lib/contract/ap";

export const dynamic = "force-dynamic";

export const POST = keyRoute({ params: apThreadParams, body: apHistoryBody }, async ({ user, params, body }) =>
  getThreadHistory(user.id, params.id, body),
);

export const GET = keyRoute({ params: apThreadParams, query: apHistoryQuery }, async ({ user, params, query }) =>
  getThreadHistory(user.id, params.id, query),
);
