import { test, expect, type Browser, type Page } from "@playwright/test";
import { randomUUID } from "node:crypto";
import path from "node:path";
import { createTask, newEmail, openNewConversation, openTasksSheet, PASSWORD, SHOTS } from "./helpers";

// A task's card: one count (sections done of sections planned) while it works, no model
// bookkeeping on the card (it is in the details, in plain words), and once it ended, how
// it ended instead of its last progress line.

const WORDS = {
  en: {
    sheet: "Background tasks",
    details: "View details",
    count: /\d of 4 sections done/,
    cancelled: "Cancelled. Anything it had already published stays.",
    asked: /asked the model (once|\d+ times)/,
    requestsOnCard: /model requests?|used \d/,
    pending: "not due yet",
  },
  zh: {
    sheet: "后台任务",
    details: "查看详情",
    count: /已完成 \d\/4 个部分/,
    cancelled: "已取消。已经发布的内容会保留。",
    asked: /向模型请求了 \d+ 次/,
    requestsOnCard: /模型请求/,
    pending: "还没到时间",
  },
} as const;

/** Signs up through the API from this browser (its zone and language become the account's). */
async function signUp(page: Page, name: string, lang: "en" | "zh"): Promise<void> {
  await page.goto("/sign-up");
  const timeZone = await page.evaluate(() => Intl.DateTimeFormat().resolvedOptions().timeZone);
  const res = await page.request.post("/api/auth/sign-up/email", {
    data: { name, email: newEmail(name.toLowerCase()), password: PASSWORD, timeZone },
    headers: { Origin: new URL(page.url()).origin },
  });
  expect(res.status(), await res.text()).toBe(200);
  await page.goto("/");
  await expect(page.getByLabel(lang === "zh" ? "消息" : "Message", { exact: true })).toBeVisible();
}

async function pageFor(browser: Browser, lang: "en" | "zh", width: number): Promise<Page> {
  const context = await browser.newContext({
    viewport: { width, height: width > 500 ? 800 : 844 },
    locale: lang === "zh" ? "zh-CN" : "en-US",
    timezoneId: lang === "zh" ? "Asia/Shanghai" : "Europe/London",
  });
  return context.newPage();
}

for (const lang of ["en", "zh"] as const) {
  for (const width of [1280, 390]) {
    test(`one count while it works, a plain ending once cancelled (${lang}, ${width})`, async ({ browser }) => {
      const w = WORDS[lang];
      const page = await pageFor(browser, lang, width);
      await signUp(page, `Card${lang}${width}`, lang);
      const conversationId = await openNewConversation(page);
      const task = await createTask(
        page,
        conversationId,
        "Sea walls",
        { steps: 4, stepMs: 4000 },
        { mode: "at", dueInSeconds: 600 },
      );

      const sheet = await openTasksSheet(page, w.sheet);
      const card = sheet.getByRole("listitem", { name: "Sea walls" });
      await expect(card.getByTestId("task-progress")).toContainText(w.count, { timeout: 20_000 });
      // The bar says what the text says.
      await expect(card.getByRole("progressbar")).toHaveAttribute("aria-valuemax", "4");
      await expect(card).not.toContainText(/Step \d|第 \d/);
      await expect(card).not.toContainText(w.requestsOnCard);
      await expect(card).not.toContainText(w.pending);
      await page.screenshot({ path: path.join(SHOTS, `task-card-running-${lang}-${width}.png`) });

      // Model use is behind the details, in plain words.
      await card.getByRole("button", { name: w.details }).click();
      await expect(card.getByTestId("task-usage")).toContainText(w.asked);
      await card.getByRole("button", { name: w.details }).click();

      const res = await page.request.post(`/api/tasks/${task.id}/cancel`);
      expect(res.status()).toBeLessThan(300);
      await expect(card).toHaveAttribute("data-status", "cancelled", { timeout: 20_000 });
      const end = card.getByTestId("task-end");
      await expect(end).toContainText(w.cancelled);
      await expect(end).toContainText(w.count);
      // Its last progress line ("Planned 4 sections…", "Researched 1/4…") is history now, in the details' timeline.
      await expect(card).not.toContainText(/Planned|Researched|已规划|已研究/);
      await expect(card.getByTestId("task-progress")).toHaveCount(0);
      await page.screenshot({ path: path.join(SHOTS, `task-card-cancelled-${lang}-${width}.png`) });
      await page.context().close();
    });
  }
}

test("a toast in Chinese sits clear of the composer on a phone and a desktop", async ({ browser }) => {
  for (const width of [390, 1280]) {
    const page = await pageFor(browser, "zh", width);
    await signUp(page, `Toast${width}`, "zh");
    const elsewhere = await openNewConversation(page);
    // Written in, so the next New chat is a chat of its own.
    const res = await page.request.post(`/api/conversations/${elsewhere}/messages`, {
      data: { content: "潮汐是怎么形成的？", clientMessageId: randomUUID() },
    });
    expect(res.status()).toBe(202);
    expect(await openNewConversation(page)).not.toBe(elsewhere);
    // Paced so this page's feed is open before it ends: a notice written before that is not replayed as news.
    await createTask(page, elsewhere, "潮汐", { steps: 2, stepMs: 3000 });
    const toast = page.getByTestId("toast").filter({ hasText: "“潮汐”已在" });
    await expect(toast).toBeVisible({ timeout: 30_000 });
    const [box, composer] = [await toast.boundingBox(), await page.getByLabel("消息", { exact: true }).boundingBox()];
    expect(box!.y + box!.height).toBeLessThan(composer!.y);
    await page.screenshot({ path: path.join(SHOTS, `signal-toast-zh-${width}.png`) });
    await page.context().close();
  }
});
