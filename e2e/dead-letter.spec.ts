import { test, expect } from "@playwright/test";
import { createTask, newChat, openTasksSheet, signUp } from "./helpers";

// Delivery failing on purpose, the honest way: the conversation a notification
// would be told in is deleted while the task runs, so the notice has nowhere to go.
test("a notification whose conversation is gone stops for good, and the sheet says so with the reason", async ({
  page,
}) => {
  await signUp(page, "Dora");
  const conversationId = await newChat(page);
  const title = "Doomed research";
  const task = await createTask(page, conversationId, title, { steps: 6, stepMs: 1500 });

  const del = await page.request.delete(`/api/conversations/${conversationId}`);
  expect(del.status()).toBe(204);

  const sheet = await openTasksSheet(page);
  const row = sheet.getByRole("listitem", { name: title });
  await expect(row).toContainText("Cancelled", { timeout: 30_000 });
  // The card says it, with the reason; the details say it again with the attempts.
  const card = row.locator("[data-notification]").first();
  await expect(card).toHaveAttribute("data-notification", "dead_letter", { timeout: 30_000 });
  await expect(card).toContainText("Delivery stopped");
  await expect(card).toContainText("The conversation was deleted");
  await row.getByRole("button", { name: "View details" }).click();
  await expect(row.locator('[data-notification="dead_letter"]')).toHaveCount(2);
  await expect(row.getByText(/Delivery stopped · 1 attempt\b/)).toBeVisible();

  // The API tells the same, and nothing retries it.
  const res = await page.request.get(`/api/tasks/${task.id}`);
  const body = (await res.json()) as { task: { notification: { status: string; attempts: number } } };
  expect(body.task.notification.status).toBe("dead_letter");
});
