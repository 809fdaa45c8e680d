import { expect, test, type Browser, type Page } from "@playwright/test";
import path from "node:path";
import { createTask, newEmail, SHOTS, signUp } from "./helpers";

// The screens a user judges Herald by, at a desk (1280×800) and on a phone (390×844), in both languages and both
// colour schemes: each size is taken once light and once dark, once in English and once in Chinese.

type Lang = "en" | "zh";
const COMBOS: { width: number; height: number; lang: Lang; scheme: "light" | "dark" }[] = [
  { width: 1280, height: 800, lang: "en", scheme: "light" },
  { width: 1280, height: 800, lang: "zh", scheme: "dark" },
  { width: 390, height: 844, lang: "en", scheme: "dark" },
  { width: 390, height: 844, lang: "zh", scheme: "light" },
];

const WORDS = {
  en: { openReport: "Open report", cancelled: /cancel/i },
  zh: { openReport: "打开报告", cancelled: /取消/ },
};

async function open(browser: Browser, c: (typeof COMBOS)[number]): Promise<Page> {
  const phone = c.width < 640;
  const context = await browser.newContext({
    viewport: { width: c.width, height: c.height },
    colorScheme: c.scheme,
    ...(phone ? { deviceScaleFactor: 2, isMobile: true, hasTouch: true } : {}),
  });
  const page = await context.newPage();
  await signUp(page, c.lang === "zh" ? "林" : "Ada", newEmail(`shots-${c.lang}`));
  expect((await page.request.patch("/api/settings", { data: { language: c.lang } })).status()).toBe(200);
  return page;
}

async function conversation(page: Page, title: string): Promise<string> {
  const res = await page.request.post("/api/conversations", { data: { title } });
  expect(res.status(), await res.text()).toBe(201);
  return ((await res.json()) as { id: string }).id;
}

/** No streaming reply and no animation left: the picture does not depend on the moment it was taken. */
async function settle(page: Page) {
  await expect(page.locator('[data-kind="assistant"][data-streaming]')).toHaveCount(0, { timeout: 30_000 });
  await page.evaluate(() => document.fonts.ready);
}

for (const c of COMBOS) {
  const tag = `${c.width}-${c.lang}-${c.scheme}`;
  test(`screenshots ${c.width}×${c.height} ${c.lang} ${c.scheme}: after a cancel, a finished timed task, the report view`, async ({
    browser,
  }) => {
    const page = await open(browser, c);
    const words = WORDS[c.lang];

    // A timed task cancelled before its due time: one line for the cancel, no deadline judged later.
    const cancelled = await conversation(page, c.lang === "zh" ? "钴价展望" : "Cobalt price outlook");
    const { id: taskId } = await createTask(
      page,
      cancelled,
      c.lang === "zh" ? "钴价展望" : "Cobalt price outlook",
      { steps: 3, stepMs: 600_000 },
      { mode: "at", dueInSeconds: 600 },
    );
    await page.goto(`/c/${cancelled}`);
    await expect(page.locator('[data-kind="progress"]').first()).toBeVisible({ timeout: 30_000 });
    expect((await page.request.post(`/api/tasks/${taskId}/cancel`)).status()).toBe(200);
    const terminal = page.locator('[data-kind="terminal"]');
    await expect(terminal).toHaveCount(1, { timeout: 30_000 });
    await expect(terminal).toContainText(words.cancelled);
    await settle(page);
    await page.screenshot({ path: path.join(SHOTS, `after-cancel-${tag}.png`) });

    // A task asked for "by" a deadline that finishes in time: its report, the on-time notice and its narration.
    const timed = await conversation(page, c.lang === "zh" ? "欧洲电池供应链" : "EU battery supply chain");
    await createTask(
      page,
      timed,
      c.lang === "zh" ? "欧洲电池供应链" : "EU battery supply chain",
      { steps: 2, stepMs: 300 },
      { mode: "by", dueInSeconds: 300 },
    );
    await page.goto(`/c/${timed}`);
    const final = page.locator('[data-kind="body"][data-partial="false"]');
    await expect(final).toBeVisible({ timeout: 45_000 });
    await expect(page.locator('[data-kind="notice"]')).toHaveCount(1, { timeout: 30_000 });
    await settle(page);
    await page.screenshot({ path: path.join(SHOTS, `timed-finished-${tag}.png`) });

    // The report view, opened from the final version.
    await final.getByRole("button", { name: words.openReport }).click();
    const view = page.getByTestId("report-view");
    await expect(view).toBeVisible();
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(c.width);
    await page.screenshot({ path: path.join(SHOTS, `report-view-${tag}.png`) });
    await page.context().close();
  });
}
