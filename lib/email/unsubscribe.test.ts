import { afterEach, describe, expect, it } from "vitest";
import { createHmac } from "node:crypto";
import { NoSigningSecretError, unsubscribeToken, verifyUnsubscribeToken } from "./unsubscribe";

const USER = "4b1e6c3e-9d7a-4a55-8f0c-2f7d1f6b9a10";
// The string older builds signed with when BETTER_AUTH_SECRET was unset: public, in the source.
const OLD_PUBLIC_FALLBACK = "herald-development-secret";

/** A token minted the way anyone could with the public fallback. */
function forged(userId: string): string {
  const key = createHmac("sha256", OLD_PUBLIC_FALLBACK).update("herald:unsubscribe:v1").digest();
  return `${Buffer.from(userId).toString("base64url")}.${createHmac("sha256", key).update(userId).digest("base64url")}`;
}

describe("unsubscribe tokens", () => {
  const secret = process.env.BETTER_AUTH_SECRET;
  afterEach(() => {
    process.env.BETTER_AUTH_SECRET = secret;
  });

  it("are signed with the server's auth secret: a token made with the old public fallback never verifies", () => {
    expect(secret).toBeTruthy();
    expect(verifyUnsubscribeToken(unsubscribeToken(USER))).toBe(USER);
    expect(verifyUnsubscribeToken(forged(USER))).toBeNull();
  });

  it("without a server secret none is minted and none verifies, the forged one included", () => {
    delete process.env.BETTER_AUTH_SECRET;
    expect(() => unsubscribeToken(USER)).toThrow(NoSigningSecretError);
    expect(verifyUnsubscribeToken(forged(USER))).toBeNull();
  });

  it("a token of another secret does not verify", () => {
    const token = unsubscribeToken(USER);
    process.env.BETTER_AUTH_SECRET = "another-install-secret-7hT2kQ9vXw4LmP8z";
    expect(verifyUnsubscribeToken(token)).toBeNull();
  });
});
