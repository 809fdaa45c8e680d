import { test, expect, type Request } from "@playwright/test";
import { createTask, newChat, openTasksSheet, send, signUp } from "./helpers";

function isSend(request: Request): boolean {
  return request.method() === "POST" && /\/api\/conversations\/[^/]+\/messages$/.test(new URL(request.url()).pathname);
}

test("'Stop at the deadline' in the composer: the contract says no overtime, and the sheet shows the rule", async ({
  page,
}) => {
  await signUp(page, "Stella");
  await newChat(page);
  // Only offered with a deadline.
  await expect(page.getByLabel("Stop at the deadline")).toHaveCount(0);
  await page.getByLabel("Delivery").selectOption({ label: "Tell me by" });
  await page.getByLabel("Due in (minutes)").fill("5");
  await page.getByLabel("Stop at the deadline").check();
  const sent = page.waitForRequest(isSend);
  await send(page, "research heat pumps in Norway");
  const body = (await sent).postDataJSON() as { delivery?: Record<string, unknown> };
  expect(body.delivery).toEqual({ mode: "by", dueInSeconds: 300, reportIfUnfinished: false, allowOvertime: false });
  // One message, one contract: the next message starts without it.
  await expect(page.getByLabel("Delivery")).toHaveValue("none");

  const sheet = await openTasksSheet(page);
  const task = sheet.getByRole("listitem").first();
  await expect(task.locator('[data-overtime="off"]')).toHaveText("Stops at the deadline", { timeout: 20_000 });
});

test("New instructions from the task details: pending, then applied by the next step and honoured in the report", async ({
  page,
}) => {
  await signUp(page, "Ingrid");
  const conversationId = await newChat(page);
  const title = "Heat pump market";
  await createTask(page, conversationId, title, { steps: 4, stepMs: 1500 });

  const sheet = await openTasksSheet(page);
  const item = sheet.getByRole("listitem", { name: title });
  await item.getByRole("button", { name: "View details" }).click();
  await item.getByLabel("New instructions").fill("also cover recycling");
  await item.getByRole("button", { name: "Send instructions" }).click();
  await expect(item.getByLabel("New instructions")).toHaveValue("");
  await expect(item.locator('[data-instruction="applied"]')).toContainText(
    /Applied in step \d+: also cover recycling/,
    { timeout: 30_000 },
  );

  const final = page.locator('[data-kind="body"][data-partial="false"]');
  await expect(final).toBeVisible({ timeout: 30_000 });
  // It steers what the later sections say; it is never pasted into the report.
  await expect(final).not.toContainText("also cover recycling");
});
