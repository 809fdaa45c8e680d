import { test, expect } from "@playwright/test";
import path from "node:path";
import { createTask, newChat, openTasksSheet, SHOTS, signUp } from "./helpers";

// With the server gone, a page must not keep a pulsing "Running" badge and say nothing about it.

test("feed gone: Reconnecting… and greyed badges; back: Connected again, a refetch, then the banner goes", async ({
  page,
}) => {
  await page.setViewportSize({ width: 1280, height: 800 });
  await signUp(page, "Offline");
  const conversationId = await newChat(page);
  const title = "Long outage study";
  await createTask(page, conversationId, title, { steps: 3, stepMs: 600_000 });
  const badge = page.getByTestId("tasks-badge");
  await expect(badge).toHaveText("1");
  const banner = page.getByTestId("connection-banner");
  await expect(banner).toHaveCount(0);

  // Stop answering the feed, and drop the open stream the way a resumed (frozen, then thawed) page does.
  await page.route("**/api/events**", (route) => route.abort("connectionreset"));
  await page.evaluate(() => document.dispatchEvent(new Event("resume")));

  await expect(banner).toBeVisible({ timeout: 10_000 });
  await expect(banner).toHaveAttribute("data-state", "reconnecting");
  await expect(banner).toContainText("Reconnecting…");
  await expect(banner).toContainText("may be out of date");
  await expect(page.getByRole("status").filter({ hasText: "Reconnecting…" })).toHaveCount(1);
  await expect(badge).toHaveAttribute("data-stale", "true");

  const sheet = await openTasksSheet(page);
  const status = sheet.getByRole("listitem", { name: title }).locator("span[data-status]");
  await expect(status).toHaveAttribute("data-status", /running|queued|submitted/);
  await expect(status).toHaveAttribute("data-stale", "true");
  await page.screenshot({ path: path.join(SHOTS, "reconnecting-sheet-1280.png") });
  await page.keyboard.press("Escape");
  await expect(sheet).toBeHidden();

  // Back: the browser's own retry gets through; what the page shows is fetched again.
  const refetch = page.waitForRequest(
    (r) => new URL(r.url()).pathname === `/api/conversations/${conversationId}/messages`,
    { timeout: 20_000 },
  );
  await page.unroute("**/api/events**");
  await expect(banner).toHaveAttribute("data-state", "restored", { timeout: 20_000 });
  await expect(banner).toContainText("Connected again.");
  await page.screenshot({ path: path.join(SHOTS, "reconnected-1280.png") });
  await refetch;
  await expect(badge).not.toHaveAttribute("data-stale", "true");
  await expect(banner).toHaveCount(0, { timeout: 10_000 });

  const again = await openTasksSheet(page);
  await expect(again.getByRole("listitem", { name: title }).locator("span[data-status]")).not.toHaveAttribute(
    "data-stale",
    "true",
  );
});
