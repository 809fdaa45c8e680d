import { renderToStaticMarkup } from "react-dom/server";
import { describe, expect, it } from "vitest";
import { I18nProvider } from "@/lib/client/i18n";
import type { PublicWebhookDelivery } from "@/lib/contract/ap";
import type { Lang } from "@/lib/i18n/dictionaries";
import { WebhookDeliveryRow } from "./webhook-deliveries";

const row = (w: Partial<PublicWebhookDelivery>, lang: Lang = "en") =>
  renderToStaticMarkup(
    <I18nProvider initialLang={lang}>
      <WebhookDeliveryRow
        w={{
          id: "w1",
          runId: "r1",
          threadId: "t1",
          host: "hooks.example.org",
          state: "delivered",
          attempts: 1,
          lastError: null,
          lastStatus: 200,
          createdAt: "2026-12-01T10:00:00.000Z",
          deliveredAt: "2026-12-01T10:00:02.000Z",
          ...w,
        }}
      />
    </I18nProvider>,
  );

describe("webhook deliveries in Settings", () => {
  it("names the host, the state in words and the attempts; a dead letter says why in a category", () => {
    const ok = row({});
    expect(ok).toContain("hooks.example.org");
    expect(ok).toContain("delivered");
    expect(ok).toContain("attempts: 1");
    const dead = row({ state: "dead", attempts: 8, lastError: "timeout", deliveredAt: null });
    expect(dead).toContain("gave up");
    expect(dead).toContain("last error: timeout");
    expect(row({ state: "pending", attempts: 2, lastError: "status" }, "zh")).toContain("重试中");
  });
});
