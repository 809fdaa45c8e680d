import { test, expect, type Page, type Request } from "@playwright/test";
import path from "node:path";
import { newChat, send, SHOTS, signUp } from "./helpers";

function isSend(request: Request): boolean {
  return request.method() === "POST" && /\/api\/conversations\/[^/]+\/messages$/.test(new URL(request.url()).pathname);
}

async function pickDelivery(page: Page, mode: "Tell me at" | "Tell me by", minutes: string, reportAnyway = false) {
  await page.getByLabel("Delivery").selectOption({ label: mode });
  await page.getByLabel("Due in (minutes)").fill(minutes);
  if (reportAnyway) await page.getByLabel("Report even if unfinished").check();
}

test("at-mode from the composer: body, then a notice with its outcome; readable after reload on a phone", async ({
  page,
}) => {
  await signUp(page, "Atlas");
  await newChat(page);

  // The picker validates before anything is sent.
  await page.getByLabel("Delivery").selectOption({ label: "Tell me at" });
  await page.getByLabel("Due in (minutes)").fill("0");
  await page.getByLabel("Message").fill("research the EU battery market");
  await page.getByRole("button", { name: "Send" }).click();
  await expect(page.getByText("Enter a number of minutes greater than 0")).toBeVisible();
  await expect(page.getByLabel("Due in (minutes)")).toHaveAttribute("aria-invalid", "true");
  await expect(page.locator('[data-kind="user"]')).toHaveCount(0);

  await pickDelivery(page, "Tell me at", "0.1");
  const sent = page.waitForRequest(isSend);
  await page.getByRole("button", { name: "Send" }).click();
  const body = (await sent).postDataJSON() as { content: string; delivery?: Record<string, unknown> };
  expect(body.content).toBe("research the EU battery market");
  expect(body.delivery).toEqual({ mode: "at", dueInSeconds: 6, reportIfUnfinished: false });

  // The picker resets for the next message.
  await expect(page.getByLabel("Delivery")).toHaveValue("none");
  await expect(page.getByLabel("Due in (minutes)")).toHaveCount(0);

  // The accepted contract shows under the message.
  await expect(page.locator('[data-kind="user"] [data-delivery-mode="at"]')).toBeVisible();

  await expect(page.locator('[data-kind="body"]').first()).toBeVisible({ timeout: 30_000 });
  const notice = page.locator('[data-kind="notice"]').first();
  await expect(notice).toBeVisible({ timeout: 30_000 });
  await expect(notice).toContainText(/on time|missed|late/);
  const outcome = await notice.getAttribute("data-outcome");
  expect(["on_time", "missed", "late"]).toContain(outcome);

  // The notice points at a body on the page; it never copies it.
  const link = notice.getByRole("link", { name: "Open the published body" });
  await expect(link).toBeVisible();
  const href = await link.getAttribute("href");
  expect(href).toMatch(/^#pub-/);
  await expect(page.locator(`[data-kind="body"][id="${href!.slice(1)}"]`)).toHaveCount(1);
  await link.click();
  await expect(page.locator(`[data-kind="body"][id="${href!.slice(1)}"]`)).toBeInViewport();

  // Settled: finished, and the notice that reports the final body is there (on time, or late after a missed one).
  await expect(page.locator('[data-kind="terminal"]')).toHaveCount(1, { timeout: 30_000 });
  await expect(
    page.locator('[data-kind="notice"][data-outcome="on_time"], [data-kind="notice"][data-outcome="late"]'),
  ).toHaveCount(1, {
    timeout: 30_000,
  });

  // Leave, reload, reopen on a phone: the same bodies and notices, once each.
  const bodies = await page.locator('[data-kind="body"]').count();
  const notices = await page.locator('[data-kind="notice"]').count();
  await page.setViewportSize({ width: 390, height: 844 });
  await page.reload();
  await expect(page.locator('[data-kind="body"]')).toHaveCount(bodies);
  await expect(page.locator('[data-kind="notice"]')).toHaveCount(notices);
  await page.locator('[data-kind="notice"]').last().scrollIntoViewIfNeeded();
  await page.screenshot({ path: path.join(SHOTS, "notice-390.png") });
});

test("by-mode from the composer: an early notice as soon as the final body exists", async ({ page }) => {
  await signUp(page, "Bryce");
  await newChat(page);

  await pickDelivery(page, "Tell me by", "5", true);
  const sent = page.waitForRequest(isSend);
  await send(page, "research heat pumps in Norway");
  const body = (await sent).postDataJSON() as { delivery?: Record<string, unknown> };
  expect(body.delivery).toEqual({ mode: "by", dueInSeconds: 300, reportIfUnfinished: true });

  await expect(page.locator('[data-kind="body"][data-partial="false"]')).toHaveCount(1, { timeout: 30_000 });
  const notice = page.locator('[data-kind="notice"][data-outcome="early"]');
  await expect(notice).toHaveCount(1, { timeout: 30_000 });
  await expect(notice).toContainText("early");
  await expect(notice.getByRole("link", { name: "Open the published body" })).toBeVisible();

  // The sheet tells the same story: by-contract, outcome early.
  await page.getByRole("button", { name: "Background tasks", exact: true }).click();
  const sheet = page.getByRole("dialog", { name: "Background tasks" });
  const task = sheet.getByRole("region", { name: "Recent" }).getByRole("listitem").first();
  await expect(task).toContainText("Succeeded");
  await expect(task.locator('[data-delivery-mode="by"]')).toBeVisible();
  await expect(task.locator('[data-outcome="early"]')).toHaveText("early");
});
