import { db } from "@/lib/db/kysely";
import { sql } from "kysely";
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
  const rows = await db()
    .selectFrom("conversation")
    .select(["id", "createdAt", "updatedAt", "apMetadata"])
    .where("ownerId", "=", ownerId)
    .where("deletedAt", "is", null)
    .where("apMetadata", "is not", null)
    .where(sql<boolean>`"apMetadata" @> ${JSON.stringify(q.metadata ?? {})}::jsonb`)
    .$if(q.ids !== undefined, (qb) => qb.where((eb) => eb("id", "=", eb.fn.any(sql<string[]>`${q.ids}::text[]`))))
    .orderBy("createdAt", "desc")
    .orderBy("id", "desc")
    .limit(q.limit ?? 10)
    .offset(q.offset ?? 0)
    .execute();
  return Promise.all(rows.map(async (c) => toApThread(c, await threadTasks(ownerId, c.id))));
}
