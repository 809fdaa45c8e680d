import { z } from "zod";
import { ApiError } from "./errors";
import { userFromHeaders, trustedOrigins, type SessionUser } from "@/lib/auth/auth";
import { Prisma } from "@/lib/db/generated/client.ts";

/** Whole-body cap; individual fields have their own zod limits. */
export const MAX_BODY_BYTES = 256 * 1024;

type Schema = z.ZodType | undefined;
type Out<S extends Schema> = S extends z.ZodType ? z.output<S> : undefined;

export interface RouteContext<B extends Schema, Q extends Schema, P extends Schema> {
  req: Request;
  user: SessionUser;
  body: Out<B>;
  query: Out<Q>;
  params: Out<P>;
}

interface RouteOptions<B extends Schema, Q extends Schema, P extends Schema> {
  body?: B;
  query?: Q;
  params?: P;
}

export function json(data: unknown, status = 200, headers?: HeadersInit): Response {
  return new Response(JSON.stringify(data), {
    status,
    headers: { "content-type": "application/json; charset=utf-8", "cache-control": "no-store", ...headers },
  });
}

export function errorResponse(err: ApiError): Response {
  const error: { code: string; message: string; field?: string } = { code: err.code, message: err.message };
  if (err.field) error.field = err.field;
  return json({ error }, err.status);
}

function parse<S extends z.ZodType>(schema: S, value: unknown, where: string): z.output<S> {
  const result = schema.safeParse(value);
  if (result.success) return result.data;
  const issue = result.error.issues[0];
  // An unknown key is reported on its parent; name the key itself.
  const path = issue.code === "unrecognized_keys" ? [...issue.path, issue.keys[0]] : issue.path;
  const field = path.length ? path.join(".") : where;
  throw new ApiError("bad_request", `${field}: ${issue.message}`, field);
}

/**
 * Browsers always send Origin on cross-site POSTs; a request without one did not
 * come from another site's page, so only a mismatching Origin is refused.
 */
function checkOrigin(req: Request): void {
  const origin = req.headers.get("origin");
  if (origin === null) {
    if (req.headers.get("sec-fetch-site") === "cross-site") throw new ApiError("forbidden", "Cross-site request refused");
    return;
  }
  const host = req.headers.get("x-forwarded-host") ?? req.headers.get("host");
  let ok = trustedOrigins().includes(origin);
  try {
    ok ||= host !== null && new URL(origin).host === host;
  } catch {
    ok = false;
  }
  if (!ok) throw new ApiError("forbidden", "Cross-site request refused");
}

async function readJson(req: Request): Promise<unknown> {
  const declared = Number(req.headers.get("content-length") ?? 0);
  if (declared > MAX_BODY_BYTES) throw new ApiError("payload_too_large", `body: larger than ${MAX_BODY_BYTES} bytes`, "body");
  const text = await req.text();
  if (Buffer.byteLength(text) > MAX_BODY_BYTES) {
    throw new ApiError("payload_too_large", `body: larger than ${MAX_BODY_BYTES} bytes`, "body");
  }
  if (text.trim() === "") return {};
  try {
    return JSON.parse(text);
  } catch {
    throw new ApiError("bad_request", "body: malformed JSON", "body");
  }
}

function mapError(err: unknown): ApiError {
  if (err instanceof ApiError) return err;
  if (err instanceof Prisma.PrismaClientKnownRequestError && err.code === "P2025") {
    return new ApiError("not_found", "Resource not found");
  }
  console.error("[api] unhandled error", err);
  return new ApiError("internal", "Something went wrong on our side; try again in a moment");
}

/**
 * The one wrapper every route handler goes through: session auth, Origin check
 * on mutations, zod parsing of params/query/body and mapping of typed errors to
 * the JSON error contract (DESIGN §10). Handlers return data (200) or a Response.
 */
export function route<B extends Schema = undefined, Q extends Schema = undefined, P extends Schema = undefined>(
  opts: RouteOptions<B, Q, P>,
  handler: (ctx: RouteContext<B, Q, P>) => Promise<unknown>,
) {
  return async (req: Request, segment?: { params?: Promise<Record<string, string | string[]>> }) => {
    try {
      const mutation = !["GET", "HEAD", "OPTIONS"].includes(req.method);
      if (mutation) checkOrigin(req);
      const user = await userFromHeaders(req.headers);
      if (!user) throw new ApiError("unauthorized", "Sign in to continue");
      const rawParams = (await segment?.params) ?? {};
      const params = (opts.params ? parse(opts.params, rawParams, "params") : undefined) as Out<P>;
      const url = new URL(req.url);
      const query = (opts.query ? parse(opts.query, Object.fromEntries(url.searchParams), "query") : undefined) as Out<Q>;
      const body = (opts.body ? parse(opts.body, await readJson(req), "body") : undefined) as Out<B>;
      const result = await handler({ req, user, body, query, params });
      if (result instanceof Response) return result;
      if (result === undefined) return new Response(null, { status: 204 });
      return json(result);
    } catch (err) {
      return errorResponse(mapError(err));
    }
  };
}
