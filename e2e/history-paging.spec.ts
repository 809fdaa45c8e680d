import { test, expect } from "@playwright/test";
import { randomUUID } from "node:crypto";
import { seedChatTurns } from "./db";
import { createTask, newChat, openTasksSheet, signUp } from "./helpers";

test("a long conversation opens at its newest messages and loads older ones on scroll up, keeping the place", async ({
  page,
}) => {
  await signUp(page, "Scroller");
  const conversationId = await newChat(page);
  // Straight into the database: the paging is the point, not how the turns were made.
  await seedChatTurns(conversationId, 30); // 60 messages: more than the first page of 50

  await page.reload();
  const log = page.getByRole("log");
  const messages = log.locator("[data-message-id]");
  await expect(log.getByText("turn 30", { exact: true })).toBeVisible();
  await expect(messages).toHaveCount(50);
  await expect(log.getByText("turn 1", { exact: true })).toHaveCount(0);

  // The message at the top of the window, and where it sits on screen just before older ones arrive.
  const anchor = messages.first();
  const anchorId = await anchor.getAttribute("data-message-id");
  const scroller = log.locator("xpath=..");
  await scroller.evaluate((el) => (el.scrollTop = 0));
  await expect(log.getByText("turn 1", { exact: true })).toHaveCount(1);
  await expect(messages).toHaveCount(60);
  await expect(log.getByRole("button", { name: "Load older messages" })).toHaveCount(0);

  // Older messages went on top without moving the reader: the old first message is where it was (below the new ones).
  const kept = log.locator(`[data-message-id="${anchorId}"]`);
  const scrollTop = await scroller.evaluate((el) => el.scrollTop);
  expect(scrollTop).toBeGreaterThan(200);
  const box = await kept.boundingBox();
  const scrollerBox = await scroller.boundingBox();
  expect(box!.y - scrollerBox!.y).toBeGreaterThan(-50);
  expect(box!.y - scrollerBox!.y).toBeLessThan(200);

  // Live messages still arrive at the bottom, once each.
  await page.request.post(`/api/conversations/${conversationId}/messages`, {
    data: { content: "turn live", clientMessageId: randomUUID() },
  });
  await expect(log.getByText("turn live", { exact: true })).toHaveCount(1);
  await expect(messages).toHaveCount(62, { timeout: 30_000 });
});

test.describe("phone header", () => {
  test.use({ viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true });

  test("390×844: the title has room, sign-out is in the Account menu, the progress line is not squeezed", async ({
    page,
  }) => {
    await signUp(page, "Narrow");
    const conversationId = await newChat(page);
    await createTask(page, conversationId, "Cobalt price outlook", { steps: 3, stepMs: 600_000 });
    const title = page.getByRole("heading", { level: 1 });
    await expect(title).toBeVisible();
    expect((await title.boundingBox())!.width).toBeGreaterThanOrEqual(200);
    // No header control spills over the edge.
    for (const name of ["Conversations", "Background tasks", "New chat", "Account"]) {
      const box = await page.getByRole("button", { name, exact: true }).boundingBox();
      expect(box, name).not.toBeNull();
      expect(box!.x + box!.width, name).toBeLessThanOrEqual(390);
    }
    await expect(page.getByRole("button", { name: "Sign out" })).toHaveCount(0);

    // The progress line takes the row; the toggle sits below it.
    const group = page.locator('[data-kind="progress"]');
    await expect(group.filter({ hasText: "Planned 3 sections" })).toBeVisible();
    const line = group.locator("p").first();
    expect((await line.boundingBox())!.width).toBeGreaterThanOrEqual(280);
    const toggle = group.getByRole("button", { name: "Show history" });
    expect((await toggle.boundingBox())!.y).toBeGreaterThan((await line.boundingBox())!.y);

    // Keyboard: open, Escape closes and focus returns; then sign out from the menu.
    const account = page.getByRole("button", { name: "Account", exact: true });
    await account.focus();
    await page.keyboard.press("Enter");
    const menu = page.getByRole("dialog", { name: "Account" });
    await expect(menu).toBeVisible();
    await expect(menu.getByText("Narrow", { exact: true })).toBeVisible();
    await page.keyboard.press("Escape");
    await expect(menu).toBeHidden();
    await expect(account).toBeFocused();
    await account.click();
    await menu.getByRole("button", { name: "Sign out" }).click();
    // Not waitForURL: the sign-out navigation can be superseded by another to the same page (ERR_ABORTED).
    await expect(page).toHaveURL(/\/sign-in$/);
  });
});

test("View details: the task's timeline, on demand", async ({ page }) => {
  await signUp(page, "Timeline");
  const conversationId = await newChat(page);
  await createTask(page, conversationId, "Nickel supply", { steps: 2, stepMs: 0 });
  await expect(page.locator('[data-kind="terminal"]')).toHaveCount(1, { timeout: 30_000 });
  const sheet = await openTasksSheet(page);
  const row = sheet.getByRole("listitem", { name: "Nickel supply" });
  await row.getByRole("button", { name: "View details" }).click();
  const toggle = row.getByRole("button", { name: "Show timeline" });
  await expect(toggle).toHaveAttribute("aria-expanded", "false");
  await expect(row.getByTestId("task-timeline")).toHaveCount(0);
  await toggle.click();
  const timeline = row.getByTestId("task-timeline");
  await expect(timeline.locator('[data-history-type="created"]')).toHaveCount(1);
  await expect(timeline.locator('[data-history-type="step"]')).toHaveCount(3);
  await expect(timeline.locator('[data-history-type="publication"]')).toHaveCount(2);
  await expect(timeline.locator('[data-history-type="status"]').last()).toContainText("Succeeded");
  const types = await timeline
    .locator("[data-history-type]")
    .evaluateAll((els) => els.map((e) => e.getAttribute("data-history-type")));
  expect(types[0]).toBe("created");
  expect(types.indexOf("terminal")).toBeGreaterThan(types.lastIndexOf("step"));
  await row.getByRole("button", { name: "Hide timeline" }).click();
  await expect(timeline).toBeHidden();
});
