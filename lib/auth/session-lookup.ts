import { createHmac, timingSafeEqual } from "node:crypto";
import { sessionByToken } from "./sql";

/**
 * better-auth's getSession reads the session row, then its user: two queries on
 * every API request, page and feed (its Prisma adapter cannot join, and its cookie
 * cache would keep a revoked session working until the cache expires, which
 * Herald does not accept). Most requests carry the signed cookie of a live session
 * that needs no refresh; one joined query answers those exactly as better-auth
 * would. Everything else — a missing or unsigned cookie beside a stale cache
 * cookie, an unknown, expired or refresh-due session, a repeated cookie name —
 * is left to better-auth (`undefined`), which also does its cleanup there
 * (clearing cookies, deleting the expired row, extending the expiry).
 */
export interface SessionCookies {
  /** better-auth's `$context`: the cookie names, secret and session lifetimes it uses itself. */
  authCookies: { sessionToken: { name: string }; sessionData: { name: string } };
  secret: string;
  sessionConfig: { expiresIn: number; updateAge: number };
}

export interface LiveSession {
  id: string;
  name: string;
  email: string;
  sessionId: string;
}

/** The cookie's values under `name` (better-call's parsing: trimmed, unquoted, URI-decoded). */
function cookieValues(header: string, name: string): string[] {
  const out: string[] = [];
  for (const part of header.split(";")) {
    const eq = part.indexOf("=");
    if (eq === -1 || part.slice(0, eq).trim() !== name) continue;
    let value = part.slice(eq + 1).trim();
    if (value.startsWith('"')) value = value.slice(1, -1);
    try {
      value = value.includes("%") ? decodeURIComponent(value) : value;
    } catch {
      // better-call keeps an undecodable value as it is
    }
    out.push(value);
  }
  return out;
}

/** `token.signature` with a valid HMAC-SHA256 of the token under the secret → the token; else null. */
function verifiedToken(signed: string, secret: string): string | null {
  const dot = signed.lastIndexOf(".");
  if (dot < 1) return null;
  const token = signed.slice(0, dot);
  const signature = Buffer.from(signed.slice(dot + 1));
  const expected = Buffer.from(createHmac("sha256", secret).update(token).digest("base64"));
  return signature.length === expected.length && timingSafeEqual(signature, expected) ? token : null;
}

/** The signed-in user, null when there is plainly none, undefined when better-auth must decide. */
export async function liveSessionUser(headers: Headers, ctx: SessionCookies): Promise<LiveSession | null | undefined> {
  const header = headers.get("cookie") ?? "";
  const dataName = ctx.authCookies.sessionData.name;
  // better-auth clears a cache cookie it does not use: its answer carries that.
  if (header.split(";").some((p) => p.trim().startsWith(dataName))) return undefined;
  const values = cookieValues(header, ctx.authCookies.sessionToken.name);
  if (values.length === 0) return null;
  if (values.length > 1) return undefined;
  const token = verifiedToken(values[0], ctx.secret);
  if (token === null) return null;
  const row = await sessionByToken(token);
  if (!row) return undefined;
  const expires = row.expiresAt.getTime();
  const now = Date.now();
  // better-auth's own tests (JS clock): expired, or old enough that this request would extend it.
  if (expires < now) return undefined;
  if (expires - ctx.sessionConfig.expiresIn * 1000 + ctx.sessionConfig.updateAge * 1000 <= now) return undefined;
  return { id: row.id, name: row.name, email: row.email, sessionId: row.sessionId };
}
