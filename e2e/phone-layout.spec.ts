import { test, expect, type Page } from "@playwright/test";
import path from "node:path";
import { createTask, openNewConversation, SHOTS, signUp } from "./helpers";
import { fullBrowser } from "./browser";

// The notification offer and switch follow Notification.permission, which the headless shell reports as denied.
test.use(fullBrowser);

const WORDS = {
  en: {
    delivery: "Delivery",
    by: "Tell me by",
    send: "Send",
    open: "Open report",
    tools: ["Copy as Markdown", "Download Markdown", "Download PDF", "Share"],
  },
  zh: {
    delivery: "告知时间",
    by: "限时内告诉我",
    send: "发送",
    open: "打开报告",
    tools: ["复制为 Markdown", "下载 Markdown", "下载 PDF", "分享"],
  },
} as const;

async function setUp(page: Page, lang: "en" | "zh", width: number, height: number) {
  await page.setViewportSize({ width, height });
  await signUp(page, `Layout-${lang}-${width}`);
  if (lang === "zh")
    expect((await page.request.patch("/api/settings", { data: { language: "zh" } })).status()).toBe(200);
  return openNewConversation(page);
}

for (const lang of ["en", "zh"] as const) {
  const w = WORDS[lang];

  test(`phone (${lang}): Send inside a full-width composer; Tell me by stays compact`, async ({ page }) => {
    await setUp(page, lang, 390, 844);
    // Measured once the Work with choices have loaded (its longest choice sets the select's width).
    await expect
      .poll(() =>
        page
          .getByLabel(lang === "en" ? "Work with" : "交给")
          .locator("option")
          .count(),
      )
      .toBeGreaterThan(1);
    const form = page
      .locator("form")
      .filter({ has: page.getByRole("textbox") })
      .last();
    const box = (await form.boundingBox())!;
    const send = (await page.getByRole("button", { name: w.send, exact: true }).boundingBox())!;
    expect(box.width).toBeGreaterThan(390 * 0.9);
    expect(send.x + send.width).toBeLessThanOrEqual(box.x + box.width);
    expect(send.y).toBeGreaterThan(box.y);
    // On the pickers' row, not on a row of its own.
    const delivery = (await page.getByLabel(w.delivery).boundingBox())!;
    expect(Math.abs(send.y + send.height / 2 - (delivery.y + delivery.height / 2))).toBeLessThan(8);
    await page.screenshot({ path: path.join(SHOTS, `composer-390-${lang}.png`) });

    await page.getByLabel(w.delivery).selectOption({ label: w.by });
    await expect(page.getByTestId("delivery-explainer")).toBeVisible();
    const open = (await form.boundingBox())!;
    // Not half the screen, with the notification offer showing too.
    await expect(page.getByTestId("notify-offer")).toBeVisible();
    expect(open.height).toBeLessThan(844 * 0.45);
    await page.screenshot({ path: path.join(SHOTS, `composer-by-390-${lang}.png`) });
  });

  test(`report toolbar (${lang}): one row on a phone, words on a desktop`, async ({ page }) => {
    const conversationId = await setUp(page, lang, 390, 844);
    await createTask(page, conversationId, "EV market", { steps: 2, stepMs: 300 });
    // The final version: an earlier one folds away (and its view with it) when the next arrives.
    const final = page.locator('[data-kind="body"][data-partial="false"]');
    await expect(final).toBeVisible({ timeout: 30_000 });
    await final.getByRole("button", { name: w.open }).click();
    const view = page.getByTestId("report-view");
    await expect(view).toBeVisible();
    const tops = await Promise.all(
      w.tools.map(async (name) => (await view.getByRole("button", { name, exact: true }).boundingBox())!.y),
    );
    expect(Math.max(...tops) - Math.min(...tops)).toBeLessThan(2);
    await page.screenshot({ path: path.join(SHOTS, `report-toolbar-390-${lang}.png`) });

    await page.setViewportSize({ width: 1280, height: 800 });
    for (const name of w.tools) await expect(view.getByRole("button", { name, exact: true })).toContainText(name);
    await page.screenshot({ path: path.join(SHOTS, `report-toolbar-1280-${lang}.png`) });
    await page.keyboard.press("Escape");
    await page.getByLabel(w.delivery).selectOption({ label: w.by });
    await expect(page.getByRole("button", { name: w.send, exact: true })).toContainText(w.send);
    await page.screenshot({ path: path.join(SHOTS, `composer-by-1280-${lang}.png`) });
  });
}
