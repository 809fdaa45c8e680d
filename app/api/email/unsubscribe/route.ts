import { errorResponse, json } from "@/lib/http/route";
import { ApiError } from "@/lib/errors/api-error";
import { MAX_UNSUBSCRIBE_BODY_BYTES, readCapped } from "@/lib/limits/body-cap";
import { unsubscribeByToken } from "@/lib/email/unsubscribe";
import { log } from "@/lib/util/log";

export const dynamic = "force-dynamic";

/**
 * The List-Unsubscribe target (RFC 8058) and the confirm page's form. No
 * session: the signed token is the credential. GET never changes anything
 * (link scanners fetch it); it shows the confirm page.
 */
const tokenOf = (req: Request) => new URL(req.url).searchParams.get("token") ?? "";

export async function GET(req: Request): Promise<Response> {
  return new Response(null, {
    status: 303,
    headers: { location: `/unsubscribe?token=${encodeURIComponent(tokenOf(req))}`, "cache-control": "no-store" },
  });
}

export async function POST(req: Request): Promise<Response> {
  // Unauthenticated: the body is capped before it is read (the web process caps it too).
  let body: string;
  try {
    body = new TextDecoder().decode(await readCapped(req, MAX_UNSUBSCRIBE_BODY_BYTES));
  } catch (err) {
    if (err instanceof ApiError) return errorResponse(err);
    body = "";
  }
  let token = tokenOf(req);
  if (!token) token = new URLSearchParams(body).get("token") ?? "";
  let ok = false;
  try {
    ok = await unsubscribeByToken(token);
  } catch (err) {
    log("email").error({ err }, "unsubscribe failed");
    return json(
      { error: { code: "internal", message: "Something went wrong on our side; try again in a moment" } },
      500,
    );
  }
  // A mail client's one-click POST wants a status; a person's form wants a page.
  if (body.includes("List-Unsubscribe=One-Click")) {
    return ok
      ? json({ unsubscribed: true })
      : json({ error: { code: "not_found", message: "Unknown unsubscribe link" } }, 404);
  }
  return new Response(null, {
    status: 303,
    headers: { location: ok ? "/unsubscribe?done=1" : "/unsubscribe?invalid=1", "cache-control": "no-store" },
  });
}
