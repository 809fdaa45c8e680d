import { getDb } from "@/lib/db/client";
import type { PublicWebhookDelivery } from "@/lib/contract/ap";

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
  const rows = await getDb().apWebhook.findMany({
    where: { ownerId },
    orderBy: [{ createdAt: "desc" }, { id: "desc" }],
    take: WEBHOOK_LIST_LIMIT,
  });
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
