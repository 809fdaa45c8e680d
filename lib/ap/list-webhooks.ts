import { getDb } from "@/lib/db/client";

export interface PublicWebhookDelivery {
  id: string;
  runId: string;
  threadId: string;
  /** The URL's host only: a webhook URL may carry a token in its path or query. */
  host: string;
  state: "waiting" | "pending" | "delivered" | "dead";
  attempts: number;
  /** A category (address, timeout, network, status, redirects, thread_deleted), never the remote's text. */
  lastError: string | null;
  lastStatus: number | null;
  createdAt: string;
  deliveredAt: string | null;
}

export const WEBHOOK_LIST_LIMIT = 20;

const hostOf = (url: string) => {
  try {
    return new URL(url).host;
  } catch {
    return "";
  }
};

/** The account's latest webhook deliveries, for Settings. */
export async function listWebhookDeliveries(ownerId: string): Promise<{ webhooks: PublicWebhookDelivery[] }> {
  const rows = await getDb().apWebhook.findMany({ where: { ownerId }, orderBy: [{ createdAt: "desc" }, { id: "desc" }], take: WEBHOOK_LIST_LIMIT });
  return {
    webhooks: rows.map((w) => ({
      id: w.id,
      runId: w.runId,
      threadId: w.threadId,
      host: hostOf(w.url),
      state: w.state as PublicWebhookDelivery["state"],
      attempts: w.attempts,
      lastError: w.lastError,
      lastStatus: w.lastStatus,
      createdAt: w.createdAt.toISOString(),
      deliveredAt: w.deliveredAt?.toISOString() ?? null,
    })),
  };
}
