import { getDb } from "@/lib/db/client";
import { notFound } from "@/lib/errors/api-error";
import { db } from "@/lib/db/kysely";
import { toPublicShare, type PublicShare } from "@/lib/contract/share";
import { ownLivePublication } from "./sql";

/** The live links to one of the owner's publications, newest first; a deleted conversation's publication is 404 like a foreign one. */
export async function listShares(ownerId: string, publicationId: string): Promise<PublicShare[]> {
  if (!(await ownLivePublication(db(), ownerId, publicationId))) throw notFound("Report");
  const rows = await getDb().reportShare.findMany({
    where: { ownerId, publicationId },
    orderBy: { createdAt: "desc" },
  });
  return rows.map(toPublicShare);
}
