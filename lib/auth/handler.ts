import { getAuth } from "./auth";

/**
 * Every /api/auth/* request. better-auth's own 429s say when to come back only in
 * X-Retry-After and carry no error code; they get the standard Retry-After and the
 * API's error shape (docs/api.md#auth) beside better-auth's `message`/`code`, which its
 * browser client reads.
 */
export async function handleAuthRequest(req: Request): Promise<Response> {
  const res = await getAuth().handler(req);
  return res.status === 429 ? rateLimited(res) : res;
}

async function rateLimited(res: Response): Promise<Response> {
  let body: { message?: unknown; code?: unknown } = {};
  try {
    body = (await res.json()) as typeof body;
  } catch {
    // Not JSON: the generic message below will do.
  }
  const message = typeof body.message === "string" ? body.message : "Too many requests. Try again later.";
  const code = typeof body.code === "string" ? body.code : "RATE_LIMITED";
  const retryAfter = Number(res.headers.get("retry-after") ?? res.headers.get("x-retry-after") ?? 60);
  const headers = new Headers(res.headers);
  headers.set("retry-after", String(Number.isFinite(retryAfter) ? Math.max(1, Math.ceil(retryAfter)) : 60));
  headers.set("content-type", "application/json; charset=utf-8");
  headers.set("cache-control", "no-store");
  headers.delete("content-length");
  return new Response(JSON.stringify({ message, code, error: { code: "rate_limited", message } }), {
    status: 429,
    statusText: "Too Many Requests",
    headers,
  });
}
