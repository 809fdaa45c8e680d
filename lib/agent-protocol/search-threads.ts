import { getDb } from "@/lib/db/client";
import { Prisma } from "@/lib/db/generated/client.ts";
import type { ApThread } from "@/lib/contract/ap";
import { toApThread } from "./project";
import { threadTasks } from "./thread-access";

/**
 * The account's threads whose metadata contains the given pairs (jsonb @>),
 * newest first. A supervisor looks its own idempotency key up this way before
 * creating a thread again after a crash.
 */
export async function searchThreads(
  ownerId: string,
  q: { metadata?: Record<string, unknown>; ids?: string[]; limit?: number; offset?: number },
): Promise<ApThread[]> {
  const metadata = JSON.stringify(q.metadata ?? {});
  const ids = q.ids ? Prisma.sql`AND id = ANY(${q.ids})` : Prisma.empty;
  const rows = await getDb().$queryRaw<{ id: string; createdAt: Date; updatedAt: Date; apMetadata: unknown }[]>`
    SELECT id, "createdAt", "updatedAt", "apMetadata" FROM "conversation"
    WHERE "ownerId" = ${ownerId} AND "deletedAt" IS NULL AND "apMetadata" IS NOT NULL
      AND "apMetadata" @> ${metadata}::jsonb ${ids}
    ORDER BY "createdAt" DESC, id DESC
    LIMIT ${q.limit ?? 10} OFFSET ${q.offset ?? 0}`;
  return Promise.all(
    rows.map(async (c) =>
      toApThread({ ...c, apMetadata: c.apMetadata as Prisma.JsonValue }, await threadTasks(ownerId, c.id)),
    ),
  );
}
