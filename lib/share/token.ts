import { createHash, randomBytes } from "node:crypto";

/**
 * Share tokens: 32 random bytes, base64url (43 characters). Only the SHA-256 is
 * stored, so a database read does not hand out working links; a token has full
 * entropy, so a slow hash would add nothing.
 */
const TOKEN_SHAPE = /^[A-Za-z0-9_-]{43}$/;

export function newShareToken(): { token: string; hash: string } {
  const token = randomBytes(32).toString("base64url");
  return { token, hash: hashShareToken(token) };
}

export function hashShareToken(token: string): string {
  return createHash("sha256").update(token, "utf8").digest("hex");
}

/** Anything else is not a token we made: refused before it reaches the database. */
export const isShareToken = (value: string) => TOKEN_SHAPE.test(value);
