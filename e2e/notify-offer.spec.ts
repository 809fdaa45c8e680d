import { test, expect, type Page } from "@playwright/test";
import path from "node:path";
import { openNewConversation, SHOTS, signUp } from "./helpers";
import { fullBrowser } from "./browser";

// The notification offer and switch follow Notification.permission, which the headless shell reports as denied.
test.use(fullBrowser);

async function pickDeadline(
  page: Page,
  mode: "Tell me at" | "Tell me by" | "到点告诉我" | "限时内告诉我",
  label = "Delivery",
) {
  await page.getByLabel(label).selectOption({ label: mode });
}

test("setting a deadline offers browser notifications once: one click turns on the Settings switch", async ({
  browser,
}) => {
  const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
  // Stands for the user answering "Allow" to the browser's own question.
  await context.grantPermissions(["notifications"]);
  const page = await context.newPage();
  await signUp(page, "Asker");
  await openNewConversation(page);

  // No deadline, no question.
  await expect(page.getByRole("button", { name: "Turn on notifications" })).toHaveCount(0);
  await pickDeadline(page, "Tell me by");
  const offer = page.getByTestId("notify-offer");
  await expect(offer).toBeVisible();
  // What happens otherwise is said plainly.
  await expect(offer).toContainText("the notice still waits in this chat");
  await page.screenshot({ path: path.join(SHOTS, "notify-offer-1280-en.png") });
  await offer.getByRole("button", { name: "Turn on notifications" }).click();
  await expect(page.getByRole("status").filter({ hasText: "Notifications are on" })).toBeVisible();

  // The same setting as Settings' switch.
  await page.goto("/settings");
  await expect(page.getByRole("checkbox", { name: "Notify me in this browser" })).toBeChecked();
  await expect(page.getByTestId("notify-state")).toHaveAttribute("data-state", "on");

  // Answered: never offered again, even with notifications switched off later.
  await page.getByRole("checkbox", { name: "Notify me in this browser" }).uncheck();
  await openNewConversation(page);
  await pickDeadline(page, "Tell me at");
  await expect(page.getByLabel("Due in (minutes)")).toBeVisible();
  await expect(page.getByTestId("notify-offer")).toHaveCount(0);
  await context.close();
});

test("declining (Not now, in Chinese on a phone) says where the notice goes and is not asked again", async ({
  browser,
}) => {
  const context = await browser.newContext({
    viewport: { width: 390, height: 844 },
    timezoneId: "Asia/Shanghai",
    hasTouch: true,
  });
  const page = await context.newPage();
  await signUp(page, "Decliner");
  expect((await page.request.patch("/api/settings", { data: { language: "zh" } })).status()).toBe(200);
  await openNewConversation(page);
  await pickDeadline(page, "限时内告诉我", "告知时间");
  const offer = page.getByTestId("notify-offer");
  await expect(offer).toContainText("通知仍会留在这个对话里");
  await page.screenshot({ path: path.join(SHOTS, "notify-offer-390-zh.png") });
  await offer.getByRole("button", { name: "暂不" }).click();
  await expect(page.getByTestId("notify-offer-outcome")).toContainText("通知仍会留在这个对话里");

  await page.getByLabel("告知时间").selectOption({ label: "不设期限" });
  await pickDeadline(page, "到点告诉我", "告知时间");
  await expect(page.getByTestId("notify-offer")).toHaveCount(0);
  await page.reload();
  await pickDeadline(page, "到点告诉我", "告知时间");
  await expect(page.getByTestId("delivery-explainer")).toBeVisible();
  await expect(page.getByTestId("notify-offer")).toHaveCount(0);
  await context.close();
});
