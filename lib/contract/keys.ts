import { z } from "zod";
import type { ApiKey } from "@/lib/db/generated/client.ts";

/** An API key as its owner sees it in Settings: never the key or its hash after creation. */
export interface PublicApiKey {
  id: string;
  name: string;
  /** The key's first characters, to tell keys apart. */
  prefix: string;
  createdAt: string;
  lastUsedAt: string | null;
}

export function toPublicApiKey(k: Pick<ApiKey, "id" | "name" | "prefix" | "createdAt" | "lastUsedAt">): PublicApiKey {
  return { id: k.id, name: k.name, prefix: k.prefix, createdAt: k.createdAt.toISOString(), lastUsedAt: k.lastUsedAt?.toISOString() ?? null };
}

export const createKeyBody = z.strictObject({
  name: z.string().trim().min(1, "must not be empty").max(100, "must be at most 100 characters"),
});
