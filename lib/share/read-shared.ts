import { db } from "@/lib/db/kysely";
import type { SharedReport } from "@/lib/contract/share";
import { hashShareToken, isShareToken } from "./token";

/**
 * The report a share token opens, or null (malformed, unknown, revoked, or its
 * conversation deleted). A whitelist: nothing about the account, the
 * conversation or other messages leaves here.
 */
export async function readSharedReport(token: string): Promise<SharedReport | null> {
  if (!isShareToken(token)) return null;
  const r = await db()
    .selectFrom("report_share as s")
    .innerJoin("publication as p", (j) => j.onRef("p.id", "=", "s.publicationId").onRef("p.ownerId", "=", "s.ownerId"))
    .innerJoin("conversation as c", (j) => j.onRef("c.id", "=", "p.conversationId").on("c.deletedAt", "is", null))
    .innerJoin("task as t", "t.id", "p.taskId")
    .select(["t.title", "p.content", "p.version", "p.partial", "p.createdAt"])
    .where("s.hash", "=", hashShareToken(token))
    .executeTakeFirst();
  return r
    ? {
        title: r.title,
        content: r.content,
        version: r.version,
        partial: r.partial,
        createdAt: r.createdAt.toISOString(),
      }
    : null;
}
