import type { SharedReport } from "@/lib/contract/share";
import { sharedReportByHash } from "./sql";
import { hashShareToken, isShareToken } from "./token";

/**
 * The report a share token opens, or null (malformed, unknown, revoked, or its
 * conversation deleted). A whitelist: nothing about the account, the
 * conversation or other messages leaves here.
 */
export async function readSharedReport(token: string): Promise<SharedReport | null> {
  if (!isShareToken(token)) return null;
  const r = await sharedReportByHash(hashShareToken(token));
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
