import { test, expect, type Page } from "@playwright/test";
import path from "node:path";
import { createTask, newChat, newEmail, openTasksSheet, SHOTS, signUp } from "./helpers";

// In the browser: a timed task cancelled (after a confirmation) before its due time. The
// cancel is one line in the conversation; at the old due time nothing more appears and nothing says "missed".

function timedTask(
  page: Page,
  conversationId: string,
  title: string,
  dueInSeconds: number,
  steps: number,
  stepMs: number,
) {
  return createTask(page, conversationId, title, { steps, stepMs }, { mode: "at", dueInSeconds });
}

test("a timed task cancelled before its due time: one line for the cancel, nothing at the due time", async ({
  page,
}) => {
  await page.setViewportSize({ width: 1280, height: 800 });
  await signUp(page, "Canceller");
  const created = await page.request.post("/api/conversations", { data: { title: "Witness chat" } });
  expect(created.status()).toBe(201);
  const witnessChat = (await created.json()) as { conversation?: { id: string }; id?: string };
  const witnessChatId = witnessChat.conversation?.id ?? witnessChat.id!;
  const conversationId = await newChat(page);
  const title = "Grid storage outlook";
  const task = await timedTask(page, conversationId, title, 8, 3, 600_000);
  // Due a moment later in another chat: once its due moment has been told, the cancelled one's has passed too.
  const witness = await timedTask(page, witnessChatId, "Witness", 10, 1, 0);

  const sheet = await openTasksSheet(page);
  const row = sheet.getByRole("listitem", { name: title });
  await row.getByRole("button", { name: "Cancel task" }).click();
  const confirm = page.getByRole("alertdialog", { name: `Cancel “${title}”?` });
  await expect(confirm).toContainText("Anything it has already published stays");
  await page.screenshot({ path: path.join(SHOTS, "cancel-confirm-1280.png") });
  await confirm.getByRole("button", { name: "Yes, cancel it" }).click();
  await expect(sheet.getByRole("region", { name: "Recent" }).getByRole("listitem", { name: title })).toContainText(
    "Cancelled",
    { timeout: 20_000 },
  );
  // The promise ended with the cancel: the sheet says so, never "missed" or "not due yet".
  const done = sheet.getByRole("region", { name: "Recent" }).getByRole("listitem", { name: title });
  await expect(done.locator("[data-outcome]")).toHaveAttribute("data-outcome", "cancelled");
  await page.keyboard.press("Escape");

  const said = page.locator(`[data-kind="terminal"], [data-kind="notice"], [data-kind="assistant"]`);
  await expect(page.locator('[data-kind="terminal"][data-status="cancelled"]')).toHaveCount(1);
  await expect(page.locator('[data-kind="terminal"][data-status="cancelled"]')).toContainText(
    `“${title}” was cancelled; anything it already published stays`,
  );
  await expect(said).toHaveCount(1);
  await page.screenshot({ path: path.join(SHOTS, "cancel-timed-1280.png") });

  await expect
    .poll(async () => (await (await page.request.get(`/api/tasks/${witness.id}`)).json()).task.delivery.outcome, {
      timeout: 30_000,
    })
    .toBe("on_time");
  expect(Date.parse(witness.delivery.dueAt!)).toBeGreaterThan(Date.parse(task.delivery.dueAt!));
  const after = (await (await page.request.get(`/api/tasks/${task.id}`)).json()).task;
  expect(after.status).toBe("cancelled");
  expect(after.delivery.outcome).toBeNull();
  await expect(said).toHaveCount(1);
  await page.reload();
  await expect(page.locator('[data-kind="terminal"][data-status="cancelled"]')).toHaveCount(1);
  await expect(said).toHaveCount(1);
  await expect(page.locator('[data-outcome="missed"]')).toHaveCount(0);
});

test("phone, Chinese, dark: the confirmation fits, is keyboard-operable and says what is kept; the banner in Chinese", async ({
  browser,
}) => {
  const context = await browser.newContext({
    viewport: { width: 390, height: 844 },
    colorScheme: "dark",
    deviceScaleFactor: 2,
    isMobile: true,
    hasTouch: true,
  });
  const page = await context.newPage();
  await signUp(page, "林", newEmail("lin-cancel"));
  expect((await page.request.patch("/api/settings", { data: { language: "zh" } })).status()).toBe(200);
  const conversationId = await newChat(page);
  await page.reload();
  await expect(page.locator("html")).toHaveAttribute("lang", "zh-CN");
  const title = "储能展望";
  await timedTask(page, conversationId, title, 600, 3, 600_000);

  const sheet = await openTasksSheet(page, "后台任务");
  const row = sheet.getByRole("listitem", { name: title });
  await row.getByRole("button", { name: "取消任务" }).click();
  const confirm = page.getByRole("alertdialog", { name: `取消“${title}”？` });
  await expect(confirm).toContainText("已经发布的内容会保留在对话中");
  const box = await confirm.boundingBox();
  expect(box!.x).toBeGreaterThanOrEqual(0);
  expect(box!.x + box!.width).toBeLessThanOrEqual(390);
  await expect(confirm.getByRole("button", { name: "继续运行" })).toBeFocused();
  await page.screenshot({ path: path.join(SHOTS, "cancel-confirm-390-zh-dark.png") });
  await page.keyboard.press("Tab");
  await expect(confirm.getByRole("button", { name: "确认取消" })).toBeFocused();
  await page.keyboard.press("Enter");
  await expect(confirm).toBeHidden();
  await expect(sheet.getByRole("region", { name: "最近" }).getByRole("listitem", { name: title })).toContainText(
    "已取消",
    { timeout: 20_000 },
  );
  await page.keyboard.press("Escape");

  await page.route("**/api/events**", (route) => route.abort("connectionreset"));
  await page.evaluate(() => document.dispatchEvent(new Event("resume")));
  const banner = page.getByTestId("connection-banner");
  await expect(banner).toContainText("正在重新连接…", { timeout: 10_000 });
  await page.screenshot({ path: path.join(SHOTS, "reconnecting-390-zh-dark.png") });
  await page.unroute("**/api/events**");
  await expect(banner).toContainText("已重新连接", { timeout: 20_000 });
  await context.close();
});
