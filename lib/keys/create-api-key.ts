import { getDb } from "@/lib/db/client";
import { ApiError } from "@/lib/errors/api-error";
import { toPublicApiKey, type PublicApiKey } from "@/lib/contract/keys";
import { newKey } from "./secret";

/** Keys per account: enough for every agent a person runs, not a way to fill the table. */
export const MAX_KEYS_PER_ACCOUNT = 20;

/** Creates a key; the only time the key itself is returned. */
export async function createApiKey(ownerId: string, name: string): Promise<PublicApiKey & { key: string }> {
  return getDb().$transaction(async (tx) => {
    // The account row orders concurrent creates, so the cap holds under a burst.
    await tx.$queryRaw`SELECT id FROM "user" WHERE id = ${ownerId} FOR UPDATE`;
    const count = await tx.apiKey.count({ where: { ownerId } });
    if (count >= MAX_KEYS_PER_ACCOUNT) {
      throw new ApiError("quota_exceeded", `At most ${MAX_KEYS_PER_ACCOUNT} API keys per account; revoke one you no longer use`, undefined, 60);
    }
    const { key, prefix, hash } = newKey();
    const row = await tx.apiKey.create({ data: { ownerId, name, prefix, hash } });
    return { ...toPublicApiKey(row), key };
  });
}
