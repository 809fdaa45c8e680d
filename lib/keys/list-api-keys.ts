import { getDb } from "@/lib/db/client";
import { toPublicApiKey, type PublicApiKey } from "@/lib/contract/keys";

export async function listApiKeys(ownerId: string): Promise<PublicApiKey[]> {
  const rows = await getDb().apiKey.findMany({ where: { ownerId }, orderBy: { createdAt: "desc" } });
  return rows.map(toPublicApiKey);
}
