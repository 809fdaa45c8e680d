import { isAPIError } from "better-auth/api";
import { transaction } from "@/lib/db/kysely";
import { ApiError } from "@/lib/errors/api-error";
import { toPublicApiKey, type CreateKeyBody, type PublicApiKey } from "@/lib/contract/keys";
import { CONFIRM_RULE, throttleAccount } from "@/lib/auth/account-guard";
import { getAuth } from "@/lib/auth/auth";
import { newKey } from "./secret";
import { countKeys, insertKey, lockOwnerForKey } from "./sql";

/** Keys per account: enough for every agent a person runs, not a way to fill the table. Expired keys count until revoked. */
export const MAX_KEYS_PER_ACCOUNT = 20;

/**
 * A key outlives the session that made it, so a session alone (a stolen
 * cookie) must not mint one: the account's password is checked again by
 * better-auth against its stored hash, within the budget every password
 * re-check shares. Wrong → 403.
 */
async function confirmOwnerPassword(headers: Headers, ownerId: string, password: string): Promise<void> {
  await throttleAccount(ownerId, "confirm", CONFIRM_RULE);
  try {
    await getAuth().api.verifyPassword({ body: { password }, headers });
  } catch (err) {
    if (isAPIError(err)) throw new ApiError("forbidden", "password: the password is not correct", "password");
    throw err;
  }
}

/** Creates a key; the only time the key itself is returned. */
export async function createApiKey(
  headers: Headers,
  ownerId: string,
  body: CreateKeyBody,
): Promise<PublicApiKey & { key: string }> {
  await confirmOwnerPassword(headers, ownerId, body.password);
  const days = body.expiresInDays ?? null;
  return transaction(async (tx) => {
    // The account row orders concurrent creates, so the cap holds under a burst.
    const expiresAt = await lockOwnerForKey(tx, ownerId, days);
    if ((await countKeys(tx, ownerId)) >= MAX_KEYS_PER_ACCOUNT) {
      throw new ApiError(
        "quota_exceeded",
        `At most ${MAX_KEYS_PER_ACCOUNT} API keys per account; revoke one you no longer use`,
        undefined,
        60,
      );
    }
    const { key, prefix, hash } = newKey();
    const row = await insertKey(tx, { ownerId, name: body.name, prefix, hash, expiresAt });
    return { ...toPublicApiKey(row), key };
  });
}
