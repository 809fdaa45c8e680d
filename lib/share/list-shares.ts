import { getDb } from "@/lib/db/client";
import { notFound } from "@/lib/errors/api-error";
import { toPublicShare, type PublicShare } from "@/lib/contract/share";

/** The live links to one of the owner's publications, newest first. */
export async function listShares(ownerId: string, publicationId: string): Promise<PublicShare[]> {
  const db = getDb();
  const pub = await db.publication.findFirst({ where: { id: publicationId, ownerId }, select: { id: true } });
  if (!pub) throw notFound("Report");
  const rows = await db.reportShare.findMany({ where: { ownerId, publicationId }, orderBy: { createdAt: "desc" } });
  return rows.map(toPublicShare);
}
