import { keyRoute } from "@/lib/http/route";
import { createRun } from "@/lib/agent-protocol/create-run";
import { openRunStream, sseResponse, streamModes } from "@/lib/agent-protocol/stream-run";
import { apRunCreateBody, apThreadParams } from "@/lib/contract/ap";

export const dynamic = "force-dynamic";

/** Create and stream: the run is durable before the first byte; a dropped stream leaves it running. */
export const POST = keyRoute({ params: apThreadParams, body: apRunCreateBody }, async ({ req, user, params, body }) => {
  const run = await createRun(user.id, params.id, body, { keyId: user.keyId });
  const stream = await openRunStream(user.id, params.id, run.run_id, {
    modes: streamModes(body.stream_mode),
    lastEventId: null,
    signal: req.signal,
  });
  return sseResponse(stream, params.id, run.run_id);
});
