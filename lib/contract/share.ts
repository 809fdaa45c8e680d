import type { ReportShare } from "@/lib/db/generated/client.ts";

/**
 * A share link as its owner sees it after creation: the token is in the create
 * answer only (the server keeps its hash), so a listed link can be revoked but
 * not shown again.
 */
export interface PublicShare {
  id: string;
  publicationId: string;
  createdAt: string;
}

/** The create answer: the one time the token (and the page path it opens) is returned. */
export interface CreatedShare extends PublicShare {
  token: string;
  path: string;
}

/** What the public page shows: the report and nothing about its account or conversation. */
export interface SharedReport {
  title: string;
  content: string;
  version: number;
  partial: boolean;
  createdAt: string;
}

export function toPublicShare(s: Pick<ReportShare, "id" | "publicationId" | "createdAt">): PublicShare {
  return { id: s.id, publicationId: s.publicationId, createdAt: s.createdAt.toISOString() };
}

export const sharePath = (token: string) => `/share/${token}`;
