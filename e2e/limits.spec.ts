import { test, expect } from "@playwright/test";
import { randomUUID } from "node:crypto";
import { newChat, send, signIn, signUp } from "./helpers";

test("Sign out of all devices (Settings) ends the other browser's session too", async ({ page, browser }) => {
  const email = await signUp(page, "Everywhere");
  const other = await browser.newContext();
  const otherPage = await other.newPage();
  await signIn(otherPage, email);
  const conversationId = await newChat(otherPage);

  // The header keeps one "Sign out"; the all-devices control is on Settings.
  await expect(page.getByRole("button", { name: "Sign out" })).toHaveCount(1);
  await page.getByRole("link", { name: "Settings" }).click();
  await expect(page).toHaveURL(/\/settings$/);
  await expect(page.getByRole("heading", { name: "Settings" })).toBeVisible();
  await page.getByRole("button", { name: "Sign out of all devices" }).click();
  await expect(page).toHaveURL(/\/sign-in/);

  await otherPage.goto(`/c/${conversationId}`);
  await expect(otherPage).toHaveURL(/\/sign-in/);
  const api = await otherPage.request.get("/api/conversations");
  expect(api.status()).toBe(401);
  await other.close();
});

test("over a limit, the composer says so in words and keeps the message to retry", async ({ page }) => {
  await signUp(page, "Chatty");
  const conversationId = await newChat(page);
  // Fill the account's message allowance through the API, as a script would.
  const fill = async () => {
    for (let i = 0; i < 80; i++) {
      const res = await page.request.post(`/api/conversations/${conversationId}/messages`, {
        data: { content: `burst ${i}`, clientMessageId: randomUUID() },
      });
      if (res.status() === 429) {
        expect(Number(res.headers()["retry-after"])).toBeGreaterThan(0);
        expect(["rate_limited", "quota_exceeded"]).toContain(
          ((await res.json()) as { error: { code: string } }).error.code,
        );
        return true;
      }
      expect(res.status()).toBe(202);
    }
    return false;
  };
  // The first limit met is usually the queued turns', which the worker drains a turn a second: the composer's send
  // may land after one was answered and be accepted. Then fill again; each accepted message counts towards the rolling
  // minute's allowance, which holds once reached.
  await expect(async () => {
    expect(await fill()).toBe(true);
    await send(page, "one more, please");
    await expect(page.getByText(/You've reached a usage limit for now\. Try again in \d+ s\./)).toBeVisible({
      timeout: 3_000,
    });
  }).toPass({ timeout: 90_000 });
  await expect(page.getByRole("button", { name: "Try again" })).toBeVisible();
});
