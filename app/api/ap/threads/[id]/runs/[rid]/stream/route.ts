import { keyRoute } from "@/lib/http/route";
import { openRunStream, sseResponse, streamModes } from "@/lib/agent-protocol/stream-run";
import { apJoinStreamQuery, apRunParams } from "@/lib/contract/ap";

export const dynamic = "force-dynamic";

/** Join: replays what the run emitted (after `Last-Event-ID`, when sent) and follows it live. */
export const GET = keyRoute({ params: apRunParams, query: apJoinStreamQuery }, async ({ req, user, params, query }) => {
  const modes = streamModes(
    new URL(req.url).searchParams.getAll("stream_mode").length > 1
      ? new URL(req.url).searchParams.getAll("stream_mode")
      : query.stream_mode,
  );
  const stream = await openRunStream(user.id, params.id, params.rid, {
    modes,
    lastEventId: req.headers.get("last-event-id"),
    signal: req.signal,
  });
  return sseResponse(stream, params.id, params.rid);
});
