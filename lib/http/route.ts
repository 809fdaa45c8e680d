import { z } from "zod";
import { ApiError, notFound } from "@/lib/errors/api-error";
import { userFromHeaders, trustedOrigins, type SessionUser } from "@/lib/auth/auth";
import { Prisma } from "@/lib/db/generated/client.ts";
import { randomUUID } from "node:crypto";
import type { ApiErrorBody } from "@/lib/contract/shapes";
import { userFromApiKey, type KeyUser } from "@/lib/keys/authenticate";
import { log } from "@/lib/util/log";

// The one whole-body cap, shared with the web process's own (lib/limits/body-cap.ts).
import { MAX_BODY_BYTES, readCapped } from "@/lib/limits/body-cap";

type Schema = z.ZodType | undefined;
type Out<S extends Schema> = S extends z.ZodType ? z.output<S> : undefined;

export interface RouteContext<B extends Schema, Q extends Schema, P extends Schema, U = SessionUser> {
  req: Request;
  user: U;
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

export function errorResponse(err: ApiError, ref?: string): Response {
  const error: ApiErrorBody["error"] = { code: err.code, message: err.message };
  if (err.field) error.field = err.field;
  if (ref) error.ref = ref;
  const headers =
    err.retryAfter !== undefined ? { "retry-after": String(Math.max(1, Math.ceil(err.retryAfter))) } : undefined;
  return json({ error }, err.status, headers);
}

function parse<S extends z.ZodType>(schema: S, value: unknown, where: string): z.output<S> {
  const result = schema.safeParse(value);
  if (result.success) return result.data;
  const issue = result.error.issues[0];
  // zod reports an unknown key on its parent; name the key itself, unless it is
  // no plausible field name (we would echo up to a body's worth of junk back).
  const unknownKey = issue.code === "unrecognized_keys" ? issue.keys[0] : undefined;
  const junkKey = unknownKey !== undefined && !/^[\w.-]{1,64}$/.test(unknownKey);
  const path = unknownKey !== undefined && !junkKey ? [...issue.path, unknownKey] : issue.path;
  // An empty key ({"": 1}, "?=x") would name no field at all.
  const field = path.join(".") || where;
  throw new ApiError("bad_request", `${field}: ${junkKey ? "has a field it does not take" : issue.message}`, field);
}

function parseParams<S extends z.ZodType>(schema: S, value: unknown): z.output<S> {
  const result = schema.safeParse(value);
  if (!result.success) throw notFound();
  return result.data;
}

/** A NUL, or a UTF-16 surrogate without its partner. */
// eslint-disable-next-line no-control-regex -- NUL is exactly what it looks for
const UNSTORABLE = /\u0000|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/**
 * The path of the first string (value or key) Postgres cannot hold, or null.
 * `text` and `jsonb` refuse NUL outright and `jsonb` refuses a lone surrogate
 * escape; in `text` the driver would quietly turn the surrogate into U+FFFD.
 * We refuse rather than strip or replace: normalising would change what the user
 * wrote without telling them, and could make two different idempotency keys
 * (clientMessageId, clientRequestId) the same. Iterative, so a deeply nested
 * body cannot overflow the stack.
 */
export function findUnstorable(value: unknown): (string | number)[] | null {
  interface Node {
    v: unknown;
    key: string | number | null;
    parent: Node | null;
  }
  // Paths are rebuilt from parent links only on a hit: copying them per node is quadratic in depth.
  const pathOf = (n: Node | null): (string | number)[] => {
    const path: (string | number)[] = [];
    for (let at = n; at && at.key !== null; at = at.parent) path.push(at.key);
    return path.reverse();
  };
  const stack: Node[] = [{ v: value, key: null, parent: null }];
  while (stack.length) {
    const node = stack.pop()!;
    const v = node.v;
    if (typeof v === "string") {
      if (UNSTORABLE.test(v)) return pathOf(node);
    } else if (Array.isArray(v)) {
      for (let i = v.length - 1; i >= 0; i--) stack.push({ v: v[i], key: i, parent: node });
    } else if (v !== null && typeof v === "object") {
      for (const [k, child] of Object.entries(v)) {
        // A bad key is named by its parent: echoing it back would carry the bad text.
        if (UNSTORABLE.test(k)) return pathOf(node);
        stack.push({ v: child, key: k, parent: node });
      }
    }
  }
  return null;
}

function assertStorable(value: unknown, where: string): void {
  const path = findUnstorable(value);
  if (path === null) return;
  const field = path.join(".") || where;
  throw new ApiError("bad_request", `${field}: must not contain NUL characters or unpaired surrogates`, field);
}

/**
 * Browsers always send Origin on cross-site POSTs; a request without one did not
 * come from another site's page, so only a mismatching Origin is refused.
 */
function checkOrigin(req: Request): void {
  const origin = req.headers.get("origin");
  if (origin === null) {
    if (req.headers.get("sec-fetch-site") === "cross-site")
      throw new ApiError("forbidden", "Cross-site request refused");
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

/** `application/json` or a `+json` type; parameters (charset) are not ours to judge. */
function isJsonType(contentType: string | null): boolean {
  const type = (contentType ?? "").split(";")[0].trim().toLowerCase();
  return type === "application/json" || /^application\/[a-z0-9.!#$&^_-]+\+json$/.test(type);
}

/**
 * The body as a JSON object. An empty body is `{}` (POST /api/conversations
 * takes no fields); anything else must say it is JSON — a form or text/plain
 * body is also what a cross-site page can send without a preflight.
 */
async function readJson(req: Request): Promise<Record<string, unknown>> {
  const bytes = await readCapped(req, MAX_BODY_BYTES);
  let text: string;
  try {
    text = new TextDecoder("utf-8", { fatal: true }).decode(bytes);
  } catch {
    throw new ApiError("bad_request", "body: not valid UTF-8", "body");
  }
  if (text.trim() === "") return {};
  if (!isJsonType(req.headers.get("content-type"))) {
    throw new ApiError("bad_request", "body: send JSON with Content-Type: application/json", "body");
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new ApiError("bad_request", "body: malformed JSON", "body");
  }
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    throw new ApiError("bad_request", "body: must be a JSON object", "body");
  }
  return value as Record<string, unknown>;
}

/** Known failures become their error; anything else is a 500 that names a ref the logs can be searched for. */
function mapError(err: unknown, req: Request): { error: ApiError; ref?: string } {
  if (err instanceof ApiError) return { error: err };
  if (err instanceof Prisma.PrismaClientKnownRequestError && err.code === "P2025") {
    return { error: new ApiError("not_found", "Resource not found") };
  }
  const ref = randomUUID();
  // The path without its query and tokens (share, reset and unsubscribe links carry them): lib/util/log.ts.
  log("api").error({ ref, method: req.method, path: req.url, err }, "unhandled error");
  // Never the error's own text: database and SDK messages name tables, values and hosts.
  return {
    error: new ApiError("internal", `Something went wrong on our side; try again in a moment (ref ${ref})`),
    ref,
  };
}

/**
 * The one wrapper every route handler goes through: session auth, Origin check
 * on mutations, zod parsing of params/query/body and mapping of typed errors to
 * the JSON error contract (docs/api.md#errors). Handlers return data (200) or a Response.
 */
export function route<B extends Schema = undefined, Q extends Schema = undefined, P extends Schema = undefined>(
  opts: RouteOptions<B, Q, P>,
  handler: (ctx: RouteContext<B, Q, P>) => Promise<unknown>,
) {
  return wrap(opts, sessionUser, handler);
}

/**
 * The same wrapper for the Agent Protocol surface (/api/ap): the caller is a
 * program holding an API key (`x-api-key` or `Authorization: Bearer`), not a
 * browser, so there is no session and no Origin check — a key is never sent
 * by a browser on its own.
 */
export function keyRoute<B extends Schema = undefined, Q extends Schema = undefined, P extends Schema = undefined>(
  opts: RouteOptions<B, Q, P>,
  handler: (ctx: RouteContext<B, Q, P, KeyUser>) => Promise<unknown>,
) {
  return wrap(opts, keyUser, handler);
}

async function sessionUser(req: Request): Promise<SessionUser> {
  const mutation = !["GET", "HEAD", "OPTIONS"].includes(req.method);
  if (mutation) checkOrigin(req);
  const user = await userFromHeaders(req.headers);
  if (!user) throw new ApiError("unauthorized", "Sign in to continue");
  return user;
}

async function keyUser(req: Request): Promise<KeyUser> {
  const user = await userFromApiKey(req.headers);
  if (!user)
    throw new ApiError(
      "unauthorized",
      "Send a valid API key in x-api-key or Authorization: Bearer (create one in Settings)",
    );
  return user;
}

function wrap<U, B extends Schema, Q extends Schema, P extends Schema>(
  opts: RouteOptions<B, Q, P>,
  authenticate: (req: Request) => Promise<U>,
  handler: (ctx: RouteContext<B, Q, P, U>) => Promise<unknown>,
) {
  return async (req: Request, segment?: { params?: Promise<Record<string, string | string[]>> }) => {
    try {
      const user = await authenticate(req);
      const rawParams = (await segment?.params) ?? {};
      // Path segments name resources: one that does not fit (not an id, a NUL…) names nothing, so 404.
      const params = (opts.params ? parseParams(opts.params, rawParams) : undefined) as Out<P>;
      let query = undefined as Out<Q>;
      if (opts.query) {
        const raw = Object.fromEntries(new URL(req.url).searchParams);
        assertStorable(raw, "query");
        query = parse(opts.query, raw, "query") as Out<Q>;
      }
      let body = undefined as Out<B>;
      if (opts.body) {
        const raw = await readJson(req);
        assertStorable(raw, "body");
        body = parse(opts.body, raw, "body") as Out<B>;
      }
      const result = await handler({ req, user, body, query, params });
      if (result instanceof Response) return result;
      if (result === undefined) return new Response(null, { status: 204 });
      return json(result);
    } catch (err) {
      const { error, ref } = mapError(err, req);
      return errorResponse(error, ref);
    }
  };
}
