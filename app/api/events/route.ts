import { route } from "@/lib/http/route";
import { ApiError } from "@/lib/errors/api-error";
import { openFeed } from "@/lib/events/feed";

export const dynamic = "force-dynamic";

/** Resume point; null (no cursor) means "live from now": the client loads snapshots itself. */
function cursorFrom(req: Request): bigint | null {
  const raw = req.headers.get("last-event-id") ?? new URL(req.url).searchParams.get("after");
  if (raw === null || raw === "") return null;
  if (!/^\d{1,18}$/.test(raw)) throw new ApiError("bad_request", "after: must be a non-negative integer", "after");
  return BigInt(raw);
}

// Bound to the session that opened it: the feed ends when that session does.
export const GET = route(
  {},
  async ({ req, user }) =>
    new Response(openFeed(user.id, cursorFrom(req), req.signal, user.sessionId), {
      headers: {
        "content-type": "text/event-stream; charset=utf-8",
        "cache-control": "no-cache, no-transform",
        connection: "keep-alive",
        "x-accel-buffering": "no",
      },
    }),
);
