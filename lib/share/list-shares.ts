import { getDb } from "@/lib/db/client";
import { notFound } from "@/lib/errors/api-error";
import { toPublicShare, type PublicShare } from "@/lib/contract/share";

/** The live links to one of the owner's publications, newest first; a deleted conversation's publication is 404 like a foreign one. */
export async function listShares(ownerId: string, publicationId: string): Promise<PublicShare[]> {
  const db = getDb();
  const pub = await db.$queryRaw<{ id: string }[]>`
    SELECT p.id FROM "publication" p JOIN "conversation" c ON c.id = p."conversationId"
    WHERE p.id = ${publicationId} AND p."ownerId" = ${ownerId} AND c."deletedAt" IS NULL`;
  if (pub.length === 0) throw notFound("Report");
  const rows = await db.reportShare.findMany({ where: { ownerId, publicationId }, orderBy: { createdAt: "desc" } });
  return rows.map(toPublicShare);
}
