import { test, expect, type Page } from "@playwright/test";
import { readFile } from "node:fs/promises";
import path from "node:path";
import { createTask, newEmail, openNewConversation, openTasksSheet, SHOTS, signUp } from "./helpers";

interface Body {
  kind: string;
  content: string;
  publicationId: string | null;
  meta: { partial?: boolean; version?: number } | null;
}

async function finalBody(page: Page, conversationId: string): Promise<Body> {
  const res = await page.request.get(`/api/conversations/${conversationId}/messages`);
  const messages = (await res.json()).messages as Body[];
  return messages.find((m) => m.kind === "body" && m.meta?.partial === false)!;
}

test("report view: earlier version folded and compared, contents, copy, downloads, print-only report, share link and revoke", async ({
  browser,
}) => {
  const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
  await context.grantPermissions(["clipboard-read", "clipboard-write"]);
  const page = await context.newPage();
  const email = await signUp(page, "Reporter");
  const conversationId = await openNewConversation(page);
  await createTask(page, conversationId, "EV market", { steps: 4, stepMs: 1500 });

  // While it works: a progress bar of sections done of the 4 planned in the sheet (the plan is no section).
  const sheet = await openTasksSheet(page);
  const bar = sheet.getByRole("progressbar", { name: "Steps done" });
  await expect(bar).toBeVisible({ timeout: 20_000 });
  await expect(bar).toHaveAttribute("aria-valuemax", "4");
  await expect(sheet.getByTestId("task-progress")).toContainText(/\d of 4 sections done/);
  await expect(sheet.getByTestId("task-progress")).toContainText(/left|estimating|finishing/);
  await page.keyboard.press("Escape");

  const final = page.locator('[data-kind="body"][data-partial="false"]');
  await expect(final).toBeVisible({ timeout: 30_000 });
  const body = await finalBody(page, conversationId);

  // The partial version is folded to one line; it opens, and compares with the final version.
  const partial = page.locator('[data-kind="body"][data-partial="true"]');
  await expect(partial).toHaveCount(1);
  const fold = partial.getByRole("button", { name: "Version 1 (partial)" });
  await expect(fold).toHaveAttribute("aria-expanded", "false");
  await expect(partial).not.toContainText("Partial report: 2 of 4 sections");
  await fold.click();
  await expect(fold).toHaveAttribute("aria-expanded", "true");
  await expect(partial).toContainText("Partial report: 2 of 4 sections");
  await partial.getByRole("button", { name: "Compare with version 2" }).click();
  const diff = partial.getByTestId("report-diff");
  await expect(diff.locator('[data-diff="del"]').first()).toContainText("Partial report");
  await expect(diff.locator('[data-diff="add"]').first()).toBeVisible();
  await partial.scrollIntoViewIfNeeded();
  await page.screenshot({ path: path.join(SHOTS, "report-versions-1280.png") });

  // The final report opens full-width with a table of contents that moves focus to the section.
  await final.getByRole("button", { name: "Open report" }).click();
  const view = page.getByRole("dialog", { name: "EV market" });
  await expect(view).toBeVisible();
  expect((await view.boundingBox())!.width).toBeGreaterThanOrEqual(1270);
  // The dialog moves focus into itself as it opens; a click before that lands has its focus taken back.
  await expect(view.locator(":focus")).toHaveCount(1);
  const contents = view.getByRole("navigation", { name: "Contents" });
  await contents.getByRole("link", { name: "Key facts and figures" }).click();
  await expect(view.getByRole("heading", { name: "Key facts and figures" })).toBeFocused();

  // Copy as Markdown puts the stored report on the clipboard.
  await view.getByRole("button", { name: "Copy as Markdown" }).click();
  await expect(view.getByRole("status").first()).toHaveText("Copied to the clipboard.");
  // The stored report as a Markdown file: the same text, ending with a newline.
  const asFile = body.content.trimEnd() + "\n";
  expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(asFile);

  // Download Markdown: the same text, named after the report.
  const downloading = page.waitForEvent("download");
  await view.getByRole("button", { name: "Download Markdown" }).click();
  const download = await downloading;
  expect(download.suggestedFilename()).toBe("EV-market-v2.md");
  expect(await readFile((await download.path())!, "utf8")).toBe(asFile);

  // Download PDF opens the print dialog (stubbed: headless has none); printed, only the report shows.
  await page.evaluate(() => {
    (window as unknown as { printed: number }).printed = 0;
    window.print = () => void (window as unknown as { printed: number }).printed++;
  });
  await view.getByRole("button", { name: "Download PDF" }).click();
  expect(await page.evaluate(() => (window as unknown as { printed: number }).printed)).toBe(1);
  const behind = page.locator('[data-kind="user"], [data-kind="body"]').first();
  await expect(behind).toBeVisible();
  await page.emulateMedia({ media: "print" });
  await expect(behind).toBeHidden();
  await expect(view.getByRole("button", { name: "Copy as Markdown" })).toBeHidden();
  await expect(view.getByRole("heading", { name: "Key facts and figures" })).toBeVisible();
  const pdf = await page.pdf();
  expect(pdf.subarray(0, 5).toString()).toBe("%PDF-");
  await page.evaluate(() => window.dispatchEvent(new Event("afterprint")));
  await page.emulateMedia({ media: "screen" });
  expect(await page.evaluate(() => document.documentElement.classList.contains("print-report"))).toBe(false);

  // Share: off until a link is made; the link opens a read-only copy for anyone, until revoked.
  await view.getByRole("button", { name: "Share", exact: true }).click();
  const share = view.getByTestId("report-share");
  await expect(share).toContainText("Not shared");
  await share.getByRole("button", { name: "Create link" }).click();
  const link = share.getByRole("textbox", { name: "Share link" });
  await expect(link).toHaveValue(/\/share\/[A-Za-z0-9_-]{43}$/);
  const url = await link.inputValue();
  await page.screenshot({ path: path.join(SHOTS, "report-view-1280.png") });

  const stranger = await browser.newContext({ viewport: { width: 390, height: 844 } });
  const reader = await stranger.newPage();
  const opened = await reader.goto(url);
  expect(opened?.status()).toBe(200);
  const shared = reader.getByTestId("shared-report");
  await expect(shared.getByRole("heading", { name: "EV market", level: 1 })).toBeVisible();
  await expect(shared).toContainText("Shared report");
  await expect(reader.locator('meta[name="robots"]')).toHaveAttribute("content", /noindex/);
  const html = await reader.content();
  for (const secret of [email, "Reporter", conversationId]) expect(html).not.toContain(secret);
  await expect(reader.locator("[data-kind]")).toHaveCount(0);
  await expect(reader.getByRole("button", { name: "Sign out" })).toHaveCount(0);
  await reader.screenshot({ path: path.join(SHOTS, "share-page-390.png") });
  await shared.getByRole("navigation", { name: "Contents" }).getByRole("link", { name: "Trends" }).click();
  await expect(shared.getByRole("heading", { name: "Trends" })).toBeFocused();
  expect(await reader.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);

  await share.getByRole("button", { name: "Revoke link" }).click();
  await expect(share).toContainText("Link revoked");
  await expect(share).toContainText("Not shared");
  expect((await reader.goto(url))?.status()).toBe(404);
  await stranger.close();

  // The same view on a phone keeps every action in reach without sideways scrolling.
  await page.setViewportSize({ width: 390, height: 844 });
  await view.getByRole("button", { name: "Share", exact: true }).click();
  await view.getByRole("navigation", { name: "Contents" }).scrollIntoViewIfNeeded();
  for (const name of ["Copy as Markdown", "Download Markdown", "Download PDF"])
    await expect(view.getByRole("button", { name })).toBeInViewport();
  expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
  await page.screenshot({ path: path.join(SHOTS, "report-view-390.png") });
  await context.close();
});

test("a Chinese request gets a Chinese report and progress; the report view works on a 390×844 phone, dark", async ({
  browser,
}) => {
  const context = await browser.newContext({ viewport: { width: 390, height: 844 }, colorScheme: "dark" });
  const page = await context.newPage();
  await signUp(page, "读者", newEmail("reader"));
  expect((await page.request.patch("/api/settings", { data: { language: "zh" } })).status()).toBe(200);
  const conversationId = await openNewConversation(page);
  await page.getByLabel("消息").fill("帮我研究一下 the EV market in Europe");
  await page.getByRole("button", { name: "发送" }).click();

  const final = page.locator('[data-kind="body"][data-partial="false"]');
  await expect(final).toBeVisible({ timeout: 45_000 });
  await expect(final).toContainText("背景与范围");
  await expect(page.locator('[data-kind="progress"]').first()).toContainText(/已研究|已规划|正在查阅/);
  const body = await finalBody(page, conversationId);
  // A report opens with its summary, then the sections (contract: `## 摘要` in Chinese).
  expect(body.content).toMatch(/^# .+\n\n## 摘要\n\n[\s\S]+\n\n## 背景与范围/);
  expect(body.content).not.toMatch(/Background|Finding|section/);

  await expect(page.getByRole("button", { name: "第 1 版（部分）" })).toHaveAttribute("aria-expanded", "false");
  await final.getByRole("button", { name: "打开报告" }).click();
  const view = page.getByTestId("report-view");
  await expect(view).toBeVisible();
  await expect(view.getByRole("navigation", { name: "目录" })).toBeVisible();
  for (const name of ["复制为 Markdown", "下载 Markdown", "下载 PDF", "分享"])
    await expect(view.getByRole("button", { name })).toBeVisible();
  expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
  await page.screenshot({ path: path.join(SHOTS, "report-view-390-zh-dark.png") });
  // Keyboard: Tab reaches the contents, Escape closes and focus returns to the button that opened it.
  await view.getByRole("navigation", { name: "目录" }).getByRole("link", { name: "主要参与者" }).focus();
  await page.keyboard.press("Enter");
  await expect(view.getByRole("heading", { name: "主要参与者" })).toBeFocused();
  await page.setViewportSize({ width: 1280, height: 800 });
  await expect(view.getByRole("navigation", { name: "目录" })).toBeInViewport();
  await page.screenshot({ path: path.join(SHOTS, "report-view-1280-zh-dark.png") });
  await page.keyboard.press("Escape");
  await expect(view).toBeHidden();
  await expect(final.getByRole("button", { name: "打开报告" })).toBeFocused();
  await context.close();
});
