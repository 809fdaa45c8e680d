import { createHmac, timingSafeEqual } from "node:crypto";
import { env } from "@/lib/config/env";
import { setEmailOff } from "./sql";

/**
 * The unsubscribe token in every notice email: the account id and an HMAC of it
 * under a key derived from the server secret, so the link works without a
 * session and cannot be forged for another account. It never expires: a link
 * in an old email must still stop the mail.
 */
const PURPOSE = "herald:unsubscribe:v1";

/**
 * The key comes from the secret better-auth signs sessions with (npm start
 * generates one into the data dir). Without it there is no key: a public
 * stand-in would let anyone mint a link for any account id.
 */
function key(): Buffer | null {
  const secret = env("BETTER_AUTH_SECRET");
  return secret ? createHmac("sha256", secret).update(PURPOSE).digest() : null;
}

export class NoSigningSecretError extends Error {
  constructor() {
    super("BETTER_AUTH_SECRET is not set: unsubscribe links cannot be signed, so no notice email is sent");
  }
}

const mac = (k: Buffer, userId: string) => createHmac("sha256", k).update(userId).digest();

/** Throws NoSigningSecretError without a server secret: a notice email must not go out with a link that cannot work. */
export function unsubscribeToken(userId: string): string {
  const k = key();
  if (!k) throw new NoSigningSecretError();
  return `${Buffer.from(userId).toString("base64url")}.${mac(k, userId).toString("base64url")}`;
}

/** The account the token was made for, or null when it is not one of ours. */
export function verifyUnsubscribeToken(token: string): string | null {
  const k = key();
  if (!k || token.length > 512) return null;
  const [id, sig, extra] = token.split(".");
  if (!id || !sig || extra !== undefined) return null;
  const userId = Buffer.from(id, "base64url").toString("utf8");
  if (!/^[\w-]{1,128}$/.test(userId)) return null;
  const given = Buffer.from(sig, "base64url");
  const want = mac(k, userId);
  return given.length === want.length && timingSafeEqual(given, want) ? userId : null;
}

/** The link's POST: email notices off for the token's account. False when the token is not valid. */
export async function unsubscribeByToken(token: string): Promise<boolean> {
  const userId = verifyUnsubscribeToken(token);
  if (userId === null) return false;
  return setEmailOff(userId);
}
