import { transaction } from "@/lib/db/kysely";
import { ApiError, notFound } from "@/lib/errors/api-error";
import { lockAccount } from "@/lib/limits/sql";
import { limitsOff } from "@/lib/limits/config";
import { sharePath, toPublicShare, type CreatedShare } from "@/lib/contract/share";
import { insertShare, ownLivePublication, shareCounts } from "./sql";
import { newShareToken } from "./token";

/** Live links per account: plenty for sharing reports, not a way to fill the table. */
export const MAX_SHARES_PER_ACCOUNT = 50;
/** Links created in any rolling minute, per account. */
export const SHARES_PER_MINUTE = 10;

/**
 * A read-only link to one publication of the owner's (a version is immutable, so
 * the link shows exactly what was shared). The only time the token is returned.
 */
export async function createShare(ownerId: string, publicationId: string): Promise<CreatedShare> {
  return transaction(async (tx) => {
    // Foreign, missing and deleted-conversation publications look the same.
    if (!(await ownLivePublication(tx, ownerId, publicationId))) throw notFound("Report");
    // The account row orders concurrent creates, so both caps hold under a burst.
    await lockAccount(tx, ownerId);
    if (!limitsOff()) {
      const counts = await shareCounts(tx, ownerId);
      if (counts.live >= MAX_SHARES_PER_ACCOUNT) {
        throw new ApiError(
          "quota_exceeded",
          `At most ${MAX_SHARES_PER_ACCOUNT} share links per account; revoke one you no longer need`,
          undefined,
          60,
        );
      }
      if (counts.recent >= SHARES_PER_MINUTE) {
        const retry = Math.max(1, Math.ceil(60 - (counts.oldestAge ?? 0)));
        throw new ApiError(
          "rate_limited",
          `Too many share links in the last minute. Try again in ${retry} s.`,
          undefined,
          retry,
        );
      }
    }
    const { token, hash } = newShareToken();
    const row = await insertShare(tx, { ownerId, publicationId, hash });
    return { ...toPublicShare(row), token, path: sharePath(token) };
  });
}
