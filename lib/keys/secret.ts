import { createHash, randomBytes } from "node:crypto";

/**
 * API key material. A key is 32 random bytes behind a recognisable prefix, so
 * a leaked one is easy to spot in logs and scanners; only its SHA-256 is
 * stored (a key has full entropy, so a slow hash adds nothing).
 */
export const KEY_PREFIX = "hrld_";

export function newKey(): { key: string; prefix: string; hash: string } {
  const key = `${KEY_PREFIX}${randomBytes(32).toString("base64url")}`;
  return { key, prefix: key.slice(0, KEY_PREFIX.length + 6), hash: hashKey(key) };
}

export function hashKey(key: string): string {
  return createHash("sha256").update(key, "utf8").digest("hex");
}

/** The key a request carries: `x-api-key` (what the LangGraph SDK sends) or `Authorization: Bearer`. */
export function keyFromHeaders(headers: Headers): string | null {
  const direct = headers.get("x-api-key")?.trim();
  if (direct) return direct;
  const auth = headers.get("authorization")?.trim() ?? "";
  const m = /^Bearer\s+(\S+)$/i.exec(auth);
  return m ? m[1] : null;
}
