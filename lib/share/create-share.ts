import { getDb } from "@/lib/db/client";
import { ApiError, notFound } from "@/lib/errors/api-error";
import { lockAccount } from "@/lib/limits/quotas";
import { limitsOff } from "@/lib/limits/config";
import { sharePath, toPublicShare, type CreatedShare } from "@/lib/contract/share";
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
  return getDb().$transaction(async (tx) => {
    // Foreign, missing and deleted-conversation publications look the same.
    const pub = await tx.$queryRaw<{ id: string }[]>`
      SELECT p.id FROM "publication" p JOIN "conversation" c ON c.id = p."conversationId"
      WHERE p.id = ${publicationId} AND p."ownerId" = ${ownerId} AND c."deletedAt" IS NULL`;
    if (pub.length === 0) throw notFound("Report");
    // The account row orders concurrent creates, so both caps hold under a burst.
    await lockAccount(tx, ownerId);
    if (!limitsOff()) {
      const [live] = await tx.$queryRaw<
        { n: number }[]
      >`SELECT count(*)::int AS n FROM "report_share" WHERE "ownerId" = ${ownerId}`;
      if (live.n >= MAX_SHARES_PER_ACCOUNT) {
        throw new ApiError(
          "quota_exceeded",
          `At most ${MAX_SHARES_PER_ACCOUNT} share links per account; revoke one you no longer need`,
          undefined,
          60,
        );
      }
      const [recent] = await tx.$queryRaw<{ n: number; oldest_age: number | null }[]>`
        SELECT count(*)::int AS n, extract(epoch FROM now() - min("createdAt"))::float8 AS oldest_age
        FROM "report_share" WHERE "ownerId" = ${ownerId} AND "createdAt" > now() - interval '60 seconds'`;
      if (recent.n >= SHARES_PER_MINUTE) {
        const retry = Math.max(1, Math.ceil(60 - (recent.oldest_age ?? 0)));
        throw new ApiError(
          "rate_limited",
          `Too many share links in the last minute. Try again in ${retry} s.`,
          undefined,
          retry,
        );
      }
    }
    const { token, hash } = newShareToken();
    const row = await tx.reportShare.create({ data: { ownerId, publicationId, hash } });
    return { ...toPublicShare(row), token, path: sharePath(token) };
  });
}
