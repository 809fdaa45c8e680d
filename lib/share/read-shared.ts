import { getDb } from "@/lib/db/client";
import type { SharedReport } from "@/lib/contract/share";
import { hashShareToken, isShareToken } from "./token";

/**
 * The report a share token opens, or null (malformed, unknown, revoked, or its
 * conversation deleted). A whitelist: nothing about the account, the
 * conversation or other messages leaves here.
 */
export async function readSharedReport(token: string): Promise<SharedReport | null> {
  if (!isShareToken(token)) return null;
  const rows = await getDb().$queryRaw<
    { title: string; content: string; version: number; partial: boolean; createdAt: Date }[]
  >`
    SELECT t.title, p.content, p.version, p.partial, p."createdAt"
    FROM "report_share" s
    JOIN "publication" p ON p.id = s."publicationId" AND p."ownerId" = s."ownerId"
    JOIN "conversation" c ON c.id = p."conversationId" AND c."deletedAt" IS NULL
    JOIN "task" t ON t.id = p."taskId"
    WHERE s.hash = ${hashShareToken(token)}`;
  const r = rows[0];
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
