import { keyUserByHash, touchKey } from "./sql";
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

/**
 * The account a request's API key belongs to, or null (missing, malformed,
 * unknown, revoked or expired: a revoked key's row is gone, an expired one is
 * judged by the database clock that set its expiry).
 */
export async function userFromApiKey(headers: Headers): Promise<KeyUser | null> {
  const key = keyFromHeaders(headers);
  if (!key || !key.startsWith(KEY_PREFIX) || key.length > 200) return null;
  const row = await keyUserByHash(hashKey(key));
  if (!row) return null;
  // The web clock only decides whether to try (most requests skip the write); the time written, and the guard that
  // keeps two web processes from both writing, are the database's, like every other timestamp.
  if (!row.lastUsedAt || Date.now() - row.lastUsedAt.getTime() > LAST_USED_GRANULARITY_MS) {
    await touchKey(row.keyId, LAST_USED_GRANULARITY_MS).catch(() => {});
  }
  return { id: row.id, name: row.name, email: row.email, keyId: row.keyId };
}
