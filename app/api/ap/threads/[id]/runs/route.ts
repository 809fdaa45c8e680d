import { z } from "zod";
import { keyRoute } from "@/lib/http/route";
import { createRun } from "@/lib/agent-protocol/create-run";
import { listRuns } from "@/lib/agent-protocol/get-run";
import { apRunCreateBody, apThreadParams } from "@/lib/contract/ap";

export const dynamic = "force-dynamic";

export const POST = keyRoute({ params: apThreadParams, body: apRunCreateBody }, async ({ user, params, body }) =>
  createRun(user.id, params.id, body, { keyId: user.keyId }),
);

const listQuery = z.looseObject({
  limit: z.coerce.number().int().min(1).max(100).optional(),
  offset: z.coerce.number().int().min(0).max(10_000).optional(),
});

export const GET = keyRoute({ params: apThreadParams, query: listQuery }, async ({ user, params, query }) =>
  listRuns(user.id, params.id, query.limit, query.offset),
);
