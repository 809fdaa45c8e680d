"use client";

import { useQuery } from "@tanstack/react-query";
import { listWebhookDeliveries } from "@/lib/client/api";
import { useI18n } from "@/lib/client/i18n";
import type { PublicWebhookDelivery } from "@/lib/contract/ap";
import { LocalTime } from "./local-time";

const STATE_WORD = {
  delivered: "webhookDelivered",
  pending: "webhookPending",
  waiting: "webhookWaiting",
  dead: "webhookDead",
} as const;

/** One delivery: where to (host only), how it stands, how often it was tried and the last failure's category. */
export function WebhookDeliveryRow({ w }: { w: PublicWebhookDelivery }) {
  const { t } = useI18n();
  return (
    <li className="flex flex-wrap items-baseline gap-x-3 gap-y-1 px-3 py-2 text-sm">
      <span className="font-medium break-all">{w.host}</span>
      <span className={w.state === "dead" ? "text-danger" : "text-muted"}>{t(STATE_WORD[w.state])}</span>
      <span className="text-xs text-muted">{t("webhookAttempts", { n: w.attempts })}</span>
      {w.lastError && w.state !== "delivered" ? (
        <span className="text-xs text-muted">{t("webhookLastError", { error: w.lastError })}</span>
      ) : null}
      <LocalTime iso={w.deliveredAt ?? w.createdAt} className="ml-auto text-xs text-muted" />
    </li>
  );
}

/** Settings: the account's latest Agent Protocol webhook deliveries, so a dead letter is seen, not guessed. */
export function WebhookDeliveriesSection() {
  const { t } = useI18n();
  const { data } = useQuery({
    queryKey: ["webhook-deliveries"],
    queryFn: listWebhookDeliveries,
    refetchInterval: 15_000,
  });
  const webhooks = data?.webhooks ?? [];
  return (
    <section aria-labelledby="webhooks-title" className="space-y-3">
      <h2 id="webhooks-title" className="text-base font-semibold">
        {t("webhooksTitle")}
      </h2>
      <p className="text-sm text-muted">{t("webhooksIntro")}</p>
      {webhooks.length === 0 ? (
        <p className="text-sm text-muted">{t("webhooksEmpty")}</p>
      ) : (
        <ul className="divide-y divide-border rounded-lg border border-border" aria-label={t("webhooksTitle")}>
          {webhooks.map((w) => (
            <WebhookDeliveryRow key={w.id} w={w} />
          ))}
        </ul>
      )}
    </section>
  );
}
