import { test, expect, type Page } from "@playwright/test";
import path from "node:path";
import { openNewConversation, send, SHOTS, signUp } from "./helpers";

const isSend = (url: URL) => /\/api\/conversations\/[^/]+\/messages$/.test(url.pathname);
const isFeed = (url: URL) => url.pathname === "/api/events";

async function storedCount(page: Page, conversationId: string, content: string): Promise<number> {
  const res = await page.request.get(`/api/conversations/${conversationId}/messages`);
  const messages = (await res.json()).messages as { kind: string; content: string }[];
  return messages.filter((m) => m.kind === "user" && m.content === content).length;
}

/** Drops the event feed the way a lost network or a resumed page does. */
async function dropFeed(page: Page) {
  await page.route(isFeed, (route) => route.abort("connectionreset"));
  await page.evaluate(() => document.dispatchEvent(new Event("resume")));
}

test("a failed send keeps its place, goes again by itself once the feed is back, and is stored once", async ({
  page,
}) => {
  await page.setViewportSize({ width: 1280, height: 800 });
  await signUp(page, "OfflineSender");
  const conversationId = await openNewConversation(page);
  await send(page, "Hello");
  await expect(page.locator('[data-kind="assistant"]')).toHaveCount(1);
  const users = page.locator('[data-kind="user"]');

  // The send never reaches the server: it fails where it was written, and says it will go again by itself.
  await page.route(isSend, (route) =>
    route.request().method() === "POST" ? route.abort("internetdisconnected") : route.continue(),
  );
  await send(page, "Written first");
  await expect(page.getByText("Your message wasn't sent")).toBeVisible();
  await expect(page.getByText("It will be sent again by itself once the connection is back.")).toBeVisible();
  await page.unroute(isSend);

  // A later message goes below it, not above.
  await send(page, "Written second");
  await expect(page.locator('[data-kind="assistant"]')).toHaveCount(2);
  await expect(users).toHaveText([/Hello/, /Written first/, /Written second/]);

  // The feed drops: the banner sits under the header, not over the chat's title.
  await dropFeed(page);
  const banner = page.getByTestId("connection-banner");
  await expect(banner).toHaveAttribute("data-state", "reconnecting", { timeout: 10_000 });
  const title = (await page.getByRole("heading", { level: 1 }).boundingBox())!;
  const box = (await banner.boundingBox())!;
  expect(box.y).toBeGreaterThanOrEqual(title.y + title.height);
  await page.screenshot({ path: path.join(SHOTS, "reconnecting-failed-send-1280.png") });

  // Back: the failed send goes by itself, once.
  const retried = page.waitForRequest((r) => r.method() === "POST" && isSend(new URL(r.url())));
  await page.unroute(isFeed);
  await retried;
  await expect(page.getByText("Your message wasn't sent")).toHaveCount(0);
  await expect.poll(() => storedCount(page, conversationId, "Written first")).toBe(1);
  await expect(users.filter({ hasText: "Written first" })).toHaveCount(1);
});

test("a send that reached the server but whose answer was lost is not stored twice by the retry on reconnect", async ({
  page,
}) => {
  await page.setViewportSize({ width: 390, height: 844 });
  await signUp(page, "LostAnswer");
  const conversationId = await openNewConversation(page);
  await dropFeed(page);
  await expect(page.getByTestId("connection-banner")).toHaveAttribute("data-state", "reconnecting", {
    timeout: 10_000,
  });
  // The server stores it; the browser sees the connection break before the answer.
  await page.route(isSend, async (route) => {
    if (route.request().method() !== "POST") return route.continue();
    await route.fetch();
    await route.abort("connectionreset");
  });
  await send(page, "Did this arrive?");
  await expect(page.getByText("Your message wasn't sent")).toBeVisible();
  const title = (await page.getByRole("heading", { level: 1 }).boundingBox())!;
  const box = (await page.getByTestId("connection-banner").boundingBox())!;
  expect(box.y).toBeGreaterThanOrEqual(title.y + title.height);
  await page.screenshot({ path: path.join(SHOTS, "reconnecting-failed-send-390.png") });
  await page.unroute(isSend);
  await page.unroute(isFeed);

  await expect(page.getByText("Your message wasn't sent")).toHaveCount(0, { timeout: 20_000 });
  await expect(page.locator('[data-kind="user"]').filter({ hasText: "Did this arrive?" })).toHaveCount(1);
  await expect(page.locator('[data-kind="assistant"]')).toHaveCount(1, { timeout: 20_000 });
  expect(await storedCount(page, conversationId, "Did this arrive?")).toBe(1);
});
