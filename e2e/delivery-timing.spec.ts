import { test, expect, type Page } from "@playwright/test";
import { randomUUID } from "node:crypto";
import { newChat, signUp } from "./helpers";

// The seed's browser acceptance for timed delivery, with tasks started over the
// API (options.simulate) so finishing before or after the due time is certain.
async function startTask(
  page: Page,
  conversationId: string,
  simulate: { steps: number; stepMs: number },
  delivery: object,
) {
  const res = await page.request.post("/api/tasks", {
    data: {
      conversationId,
      title: "Portfolio risk",
      prompt: "research my portfolio's risk",
      clientRequestId: randomUUID(),
      options: { simulate },
      delivery,
    },
  });
  expect(res.status()).toBe(202);
  return (await res.json()).task as { id: string; delivery: { dueAt: string } };
}

test.use({ viewport: { width: 390, height: 844 } });

test("at: the final body is readable before the notice, which arrives at the due time", async ({ page }) => {
  await signUp(page, "AtMode");
  const conversationId = await newChat(page);
  const task = await startTask(page, conversationId, { steps: 2, stepMs: 0 }, { mode: "at", dueInSeconds: 6 });
  const finalBody = page.locator('[data-kind="body"][data-partial="false"]');
  await expect(finalBody).toHaveCount(1, { timeout: 20_000 });
  // Finished early: the body is there, the promised notice is not — yet.
  expect(Date.now()).toBeLessThan(Date.parse(task.delivery.dueAt));
  await expect(page.locator('[data-kind="notice"]')).toHaveCount(0);
  const notice = page.locator('[data-kind="notice"]');
  await expect(notice).toHaveCount(1, { timeout: 20_000 });
  await expect(notice).toHaveAttribute("data-outcome", "on_time");
  await expect(notice).toContainText("on time");
  const detail = await (await page.request.get(`/api/tasks/${task.id}`)).json();
  expect(Date.parse(detail.task.notices[0].createdAt)).toBeGreaterThanOrEqual(Date.parse(task.delivery.dueAt));
  expect(detail.task.delivery.outcome).toBe("on_time");
});

test("missed: a due notice with the partial, then a separate late final notice; both stay after leaving and reopening", async ({
  page,
  browser,
}) => {
  await signUp(page, "Missed");
  const conversationId = await newChat(page);
  // Measured with the e2e server's offline model (25 ms chunks): partial at ~3.9 s, final at ~7.5 s.
  // Due at 5.5 s leaves more than a second on each side; at 4 s the partial raced the due moment.
  const task = await startTask(page, conversationId, { steps: 2, stepMs: 2500 }, { mode: "at", dueInSeconds: 5.5 });
  const notices = page.locator('[data-kind="notice"]');
  await expect(notices).toHaveCount(2, { timeout: 30_000 });
  await expect(notices.nth(0)).toHaveAttribute("data-outcome", "missed");
  await expect(notices.nth(1)).toHaveAttribute("data-outcome", "late");
  const partial = page.locator('[data-kind="body"][data-partial="true"]');
  const partialId = await partial.getAttribute("data-publication-id");
  await expect(notices.nth(0).getByRole("link")).toHaveAttribute("href", `#pub-${partialId}`);

  await page.goto("about:blank");
  await page.goto(`/c/${conversationId}`);
  await expect(page.locator('[data-kind="notice"]')).toHaveCount(2);
  await expect(page.locator('[data-kind="body"]')).toHaveCount(2);
  await expect(page.locator('[data-kind="notice"]').nth(0)).toHaveAttribute("data-outcome", "missed");
  await page.locator('[data-kind="notice"]').nth(0).getByRole("link").click();
  await expect(page.locator(`#pub-${partialId}`)).toBeInViewport();

  // Another account: the task, and the conversation holding its bodies and notices, are 404.
  const other = await browser.newContext({ viewport: { width: 390, height: 844 } });
  const otherPage = await other.newPage();
  await signUp(otherPage, "Snoop");
  expect((await otherPage.request.get(`/api/tasks/${task.id}`)).status()).toBe(404);
  expect((await otherPage.request.get(`/api/conversations/${conversationId}/messages`)).status()).toBe(404);
  expect((await otherPage.request.post(`/api/tasks/${task.id}/cancel`)).status()).toBe(404);
  expect((await otherPage.goto(`/c/${conversationId}#pub-${partialId}`))?.status()).toBe(404);
  await other.close();
});
