import { getDb } from "@/lib/db/client";
import { notFound } from "@/lib/errors/api-error";

/** Revoking deletes the row: the next request with that key finds nothing and is refused. */
export async function revokeApiKey(ownerId: string, id: string): Promise<void> {
  const { count } = await getDb().apiKey.deleteMany({ where: { id, ownerId } });
  if (count === 0) throw notFound("API key");
}
