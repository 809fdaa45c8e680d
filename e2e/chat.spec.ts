import { test, expect } from "@playwright/test";
import { newChat, send, signInViaUi, signUp, signUpViaUi } from "./helpers";

test("sign up, chat with a streamed reply, reload, second tab, sign out", async ({ page, context }) => {
  const email = await signUpViaUi(page, "Ada");
  const conversationId = await newChat(page);
  // The streamed state lasts a fraction of a second, so it is recorded when it appears rather than polled for: a
  // loaded machine may poll past it.
  await page.evaluate(() => {
    const w = window as unknown as { sawStreaming: boolean };
    w.sawStreaming = false;
    new MutationObserver(() => {
      if (document.querySelector('[data-kind="assistant"][data-streaming="true"]')) w.sawStreaming = true;
    }).observe(document.body, {
      subtree: true,
      childList: true,
      attributes: true,
      attributeFilter: ["data-streaming"],
    });
  });
  await send(page, "Hello Herald");

  await expect(page.locator('[data-kind="user"]').filter({ hasText: "Hello Herald" })).toHaveCount(1);
  // Token by token first (ephemeral run.delta frames), then the stored message replaces it.
  await expect
    .poll(() => page.evaluate(() => (window as unknown as { sawStreaming: boolean }).sawStreaming))
    .toBe(true);
  const reply = page.locator('[data-kind="assistant"]');
  await expect(reply).toHaveCount(1);
  await expect(reply).toContainText('You said: "Hello Herald"');
  await expect(page.locator('[data-streaming="true"]')).toHaveCount(0);

  await page.reload();
  await expect(page.locator('[data-kind="user"]')).toHaveCount(1);
  await expect(page.locator('[data-kind="assistant"]')).toHaveCount(1);

  // A second tab of the same account sees the same history and live updates.
  const tab2 = await context.newPage();
  await tab2.goto(`/c/${conversationId}`);
  await expect(tab2.locator('[data-kind="assistant"]')).toHaveCount(1);
  await send(page, "Second message");
  await expect(tab2.locator('[data-kind="user"]').filter({ hasText: "Second message" })).toHaveCount(1);
  await expect(tab2.locator('[data-kind="assistant"]')).toHaveCount(2);
  await expect(page.locator('[data-kind="assistant"]')).toHaveCount(2);
  await tab2.close();

  await page.getByRole("button", { name: "Sign out" }).click();
  await expect(page).toHaveURL(/\/sign-in/);
  await page.goto(`/c/${conversationId}`);
  await expect(page).toHaveURL(/\/sign-in/);
  await signInViaUi(page, email);
});

test("another account cannot open the first one's conversation", async ({ browser }) => {
  const owner = await browser.newContext();
  const ownerPage = await owner.newPage();
  await signUp(ownerPage, "Owner");
  const conversationId = await newChat(ownerPage);
  await send(ownerPage, "private thoughts");
  await expect(ownerPage.locator('[data-kind="assistant"]')).toHaveCount(1);

  const other = await browser.newContext();
  const otherPage = await other.newPage();
  await signUp(otherPage, "Mallory");
  const res = await otherPage.goto(`/c/${conversationId}`);
  expect(res?.status()).toBe(404);
  await expect(otherPage.getByText("private thoughts")).toHaveCount(0);
  const api = await otherPage.request.get(`/api/conversations/${conversationId}/messages`);
  expect(api.status()).toBe(404);
  await owner.close();
  await other.close();
});
