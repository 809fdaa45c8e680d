import { getDb } from "@/lib/db/client";
import { notFound } from "@/lib/errors/api-error";

/** Revoking deletes the row: the link's next request finds nothing and answers 404. */
export async function revokeShare(ownerId: string, id: string): Promise<void> {
  const { count } = await getDb().reportShare.deleteMany({ where: { id, ownerId } });
  if (count === 0) throw notFound("Share link");
}
