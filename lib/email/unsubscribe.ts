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

function key(): Buffer {
  // npm start always sets BETTER_AUTH_SECRET; only bare test processes run without one.
  const secret = env("BETTER_AUTH_SECRET") ?? "herald-development-secret";
  return createHmac("sha256", secret).update(PURPOSE).digest();
}

const mac = (userId: string) => createHmac("sha256", key()).update(userId).digest();

export function unsubscribeToken(userId: string): string {
  return `${Buffer.from(userId).toString("base64url")}.${mac(userId).toString("base64url")}`;
}

/** The account the token was made for, or null when it is not one of ours. */
export function verifyUnsubscribeToken(token: string): string | null {
  if (token.length > 512) return null;
  const [id, sig, extra] = token.split(".");
  if (!id || !sig || extra !== undefined) return null;
  const userId = Buffer.from(id, "base64url").toString("utf8");
  if (!/^[\w-]{1,128}$/.test(userId)) return null;
  const given = Buffer.from(sig, "base64url");
  const want = mac(userId);
  return given.length === want.length && timingSafeEqual(given, want) ? userId : null;
}

/** The link's POST: email notices off for the token's account. False when the token is not valid. */
export async function unsubscribeByToken(token: string): Promise<boolean> {
  const userId = verifyUnsubscribeToken(token);
  if (userId === null) return false;
  return setEmailOff(userId);
}
