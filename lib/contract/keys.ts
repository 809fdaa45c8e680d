import { z } from "zod";
import type { ApiKey } from "@/lib/db/generated/client.ts";
import { MAX_PASSWORD_LENGTH } from "./password";

/** An API key as its owner sees it in Settings: never the key or its hash after creation. */
export interface PublicApiKey {
  id: string;
  name: string;
  /** The key's first characters, to tell keys apart. */
  prefix: string;
  createdAt: string;
  lastUsedAt: string | null;
  /** After this the key no longer authenticates; null: it never expires. */
  expiresAt: string | null;
}

export function toPublicApiKey(
  k: Pick<ApiKey, "id" | "name" | "prefix" | "createdAt" | "lastUsedAt" | "expiresAt">,
): PublicApiKey {
  return {
    id: k.id,
    name: k.name,
    prefix: k.prefix,
    createdAt: k.createdAt.toISOString(),
    lastUsedAt: k.lastUsedAt?.toISOString() ?? null,
    expiresAt: k.expiresAt?.toISOString() ?? null,
  };
}

/** Lifetimes Settings offers; the API takes any whole number of days up to the last. */
export const KEY_EXPIRY_CHOICES = [30, 90, 365] as const;
export const MAX_KEY_EXPIRY_DAYS = 3650;

export const createKeyBody = z.strictObject({
  name: z.string().trim().min(1, "must not be empty").max(100, "must be at most 100 characters"),
  // A key acts as the account for as long as it lives: minting one asks for what a stolen cookie does not carry.
  password: z
    .string({ message: "required: the account's password" })
    .min(1, "required: the account's password")
    .max(MAX_PASSWORD_LENGTH, `must be at most ${MAX_PASSWORD_LENGTH} characters`),
  expiresInDays: z
    .number({ message: "must be a whole number of days" })
    .int("must be a whole number of days")
    .min(1, "must be at least 1")
    .max(MAX_KEY_EXPIRY_DAYS, `must be at most ${MAX_KEY_EXPIRY_DAYS}`)
    .nullable()
    .optional(),
});
export type CreateKeyBody = z.output<typeof createKeyBody>;
