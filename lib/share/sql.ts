import type { DB } from "@/lib/db/generated/kysely.ts";
import { db, type Executor, type Tx } from "@/lib/db/kysely";
import { sql, type Selectable } from "kysely";

/** A share link row as Kysely reads it (Prisma's `ReportShare`). */
export type ReportShareRow = Selectable<DB["report_share"]>;

/** Whether the publication is the owner's and its conversation is not deleted (foreign and missing look the same). */
export async function ownLivePublication(on: Executor, ownerId: string, publicationId: string): Promise<boolean> {
  const row = await on
    .selectFrom("publication as p")
    .innerJoin("conversation as c", "c.id", "p.conversationId")
    .select("p.id")
    .where("p.id", "=", publicationId)
    .where("p.ownerId", "=", ownerId)
    .where("c.deletedAt", "is", null)
    .executeTakeFirst();
  return row !== undefined;
}

/** The account's live links, and those created in the last minute with the oldest one's age in seconds. */
export async function shareCounts(
  tx: Tx,
  ownerId: string,
): Promise<{ live: number; recent: number; oldestAge: number | null }> {
  return tx
    .selectFrom("report_share")
    .select([
      sql<number>`count(*)::int`.as("live"),
      sql<number>`(count(*) FILTER (WHERE "createdAt" > now() - interval '60 seconds'))::int`.as("recent"),
      sql<
        number | null
      >`extract(epoch FROM now() - min("createdAt") FILTER (WHERE "createdAt" > now() - interval '60 seconds'))::float8`.as(
        "oldestAge",
      ),
    ])
    .where("ownerId", "=", ownerId)
    .executeTakeFirstOrThrow();
}

export async function insertShare(
  tx: Tx,
  share: { ownerId: string; publicationId: string; hash: string },
): Promise<ReportShareRow> {
  return tx.insertInto("report_share").values(share).returningAll().executeTakeFirstOrThrow();
}

/** The account's share links, on its deletion. */
export async function deleteOwnerShares(tx: Tx, ownerId: string): Promise<void> {
  await tx.deleteFrom("report_share").where("ownerId", "=", ownerId).execute();
}

/**
 * The report behind a share link's hash, or undefined (unknown, revoked, or its conversation deleted). Selects only
 * what the public page shows: nothing about the account, the conversation or other messages.
 */
export async function sharedReportByHash(hash: string) {
  return db()
    .selectFrom("report_share as s")
    .innerJoin("publication as p", (j) => j.onRef("p.id", "=", "s.publicationId").onRef("p.ownerId", "=", "s.ownerId"))
    .innerJoin("conversation as c", (j) => j.onRef("c.id", "=", "p.conversationId").on("c.deletedAt", "is", null))
    .innerJoin("task as t", "t.id", "p.taskId")
    .select(["t.title", "p.content", "p.version", "p.partial", "p.createdAt"])
    .where("s.hash", "=", hash)
    .executeTakeFirst();
}
