import { getDb } from "@/lib/db/client";
import { hashKey, KEY_PREFIX, keyFromHeaders } from "./secret";

export interface KeyUser {
  id: string;
  name: string;
  email: string;
  /** The key that authenticated this request. */
  keyId: string;
}

/** Last-use times are for the user's key list; writing one per request would make every call a write. */
const LAST_USED_GRANULARITY_MS = 60_000;

/** The account a request's API key belongs to, or null (missing, malformed, unknown or revoked: a revoked key's row is gone). */
export async function userFromApiKey(headers: Headers): Promise<KeyUser | null> {
  const key = keyFromHeaders(headers);
  if (!key || !key.startsWith(KEY_PREFIX) || key.length > 200) return null;
  const db = getDb();
  const row = await db.apiKey.findUnique({ where: { hash: hashKey(key) } });
  if (!row) return null;
  const user = await db.user.findUnique({ where: { id: row.ownerId }, select: { id: true, name: true, email: true } });
  if (!user) return null;
  if (!row.lastUsedAt || Date.now() - row.lastUsedAt.getTime() > LAST_USED_GRANULARITY_MS) {
    await db.apiKey.update({ where: { id: row.id }, data: { lastUsedAt: new Date() } }).catch(() => {});
  }
  return { ...user, keyId: row.id };
}
