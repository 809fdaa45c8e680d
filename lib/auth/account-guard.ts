import { isAPIError } from "better-auth/api";
import { ApiError } from "@/lib/errors/api-error";
import { authRateLimitEnabled, getAuth } from "./auth";
import { consume, type ThrottleRule } from "./throttle";

/** Password re-checks (deleting an account, minting an API key): one budget, the same as sign-in guesses. */
export const CONFIRM_RULE: ThrottleRule = { window: 15 * 60, max: 10 };
/** A full export reads up to ~25k rows; a few per minute is plenty for a person. */
export const EXPORT_RULE: ThrottleRule = { window: 60, max: 5 };

export async function throttleAccount(userId: string, what: string, rule: ThrottleRule): Promise<void> {
  if (!authRateLimitEnabled()) return;
  const { allowed, retryAfter } = await consume(`${what}|${userId}`, rule);
  if (!allowed)
    throw new ApiError("rate_limited", "Too many attempts. Try again later.", undefined, retryAfter ?? rule.window);
}

/**
 * The signed-in account's own password, checked by better-auth against its
 * stored hash (a destructive action asks for it again). Wrong → 400 naming
 * `password`.
 */
export async function confirmPassword(headers: Headers, userId: string, password: string): Promise<void> {
  await throttleAccount(userId, "confirm", CONFIRM_RULE);
  try {
    await getAuth().api.verifyPassword({ body: { password }, headers });
  } catch (err) {
    if (isAPIError(err)) throw new ApiError("bad_request", "password: the password is not correct", "password");
    throw err;
  }
}
