import { expect, test, type Page } from "@playwright/test";
import { randomUUID } from "node:crypto";

// All tasks: a filter by status, "Open report" for a task with a published
// body, and a deleted chat's task shown as such instead of a link to a 404.

const PASSWORD = "correct horse battery";

async function signUpByApi(page: Page, name: string): Promise<string> {
  await page.goto("/sign-in");
  const origin = new URL(page.url()).origin;
  const email = `${name.toLowerCase()}-${randomUUID().slice(0, 8)}@example.test`;
  const res = await page.request.post("/api/auth/sign-up/email", {
    data: { name, email, password: PASSWORD },
    headers: { Origin: origin },
  });
  expect(res.status(), await res.text()).toBe(200);
  return origin;
}

async function startTask(
  page: Page,
  origin: string,
  chatTitle: string,
  title: string,
  steps: number,
): Promise<{ conversationId: string; taskId: string }> {
  const conv = await page.request.post("/api/conversations", {
    data: { title: chatTitle },
    headers: { Origin: origin },
  });
  expect(conv.status()).toBe(201);
  const conversationId = (await conv.json()).id as string;
  const res = await page.request.post("/api/tasks", {
    data: {
      conversationId,
      title,
      prompt: `research ${title}`,
      clientRequestId: randomUUID(),
      options: { simulate: { steps, stepMs: 300 } },
    },
    headers: { Origin: origin },
  });
  expect(res.status(), await res.text()).toBeLessThan(300);
  return { conversationId, taskId: (await res.json()).task.id as string };
}

test("filter by status, Open report, and a deleted chat's task", async ({ page }) => {
  const origin = await signUpByApi(page, "Lister");
  const kept = await startTask(page, origin, "Kept chat", "Battery recycling", 2);
  const gone = await startTask(page, origin, "Gone chat", "Heat pumps", 50);
  // The first finishes with a report; deleting the second chat cancels its task.
  await expect
    .poll(async () => (await (await page.request.get(`/api/tasks/${kept.taskId}`)).json()).task.status, {
      timeout: 30_000,
    })
    .toBe("succeeded");
  expect(
    (await page.request.delete(`/api/conversations/${gone.conversationId}`, { headers: { Origin: origin } })).status(),
  ).toBe(204);
  await expect
    .poll(
      async () =>
        (
          (await (await page.request.get("/api/tasks?scope=all")).json()).tasks as { id: string; status: string }[]
        ).find((t) => t.id === gone.taskId)?.status,
      { timeout: 30_000 },
    )
    .toBe("cancelled");

  await page.goto("/tasks");
  const keptRow = page.getByRole("listitem", { name: "Battery recycling" });
  const goneRow = page.getByRole("listitem", { name: "Heat pumps" });
  await expect(keptRow).toBeVisible();
  await expect(goneRow).toContainText("From a deleted chat");
  await expect(goneRow.getByRole("link")).toHaveCount(0);

  const filter = page.getByRole("group", { name: "Filter by status" });
  await filter.getByRole("button", { name: "Done" }).click();
  await expect(keptRow).toBeVisible();
  await expect(goneRow).toHaveCount(0);
  await filter.getByRole("button", { name: "Failed or cancelled" }).click();
  await expect(goneRow).toBeVisible();
  await expect(keptRow).toHaveCount(0);
  await filter.getByRole("button", { name: "Running" }).click();
  await expect(page.getByText("No tasks with this status.")).toBeVisible();
  await filter.getByRole("button", { name: "All" }).click();
  await expect(keptRow).toBeVisible();

  await page.setViewportSize({ width: 390, height: 844 });
  await page.screenshot({ path: "test-results/all-tasks-390.png", fullPage: true });
  await page.setViewportSize({ width: 1280, height: 800 });
  await page.screenshot({ path: "test-results/all-tasks-1280.png" });

  await keptRow.getByRole("link", { name: "Open report: Battery recycling" }).click();
  await expect(page).toHaveURL(new RegExp(`/c/${kept.conversationId}#pub-`));
  await expect(page.locator('[data-kind="body"]').first()).toBeVisible({ timeout: 15_000 });
});

test("small things: favicon, Copy key, no reset link without email", async ({ page, context }) => {
  expect((await page.request.get("/favicon.ico")).status()).toBe(200);
  await page.goto("/sign-in");
  // The e2e server has no SMTP_URL: no link to a page that can only say email is off.
  await expect(page.getByRole("link", { name: "Forgot password?" })).toHaveCount(0);
  await expect(page.getByTestId("reset-by-operator")).toContainText("ask the person who runs it");

  await context.grantPermissions(["clipboard-read", "clipboard-write"]);
  await signUpByApi(page, "Keyholder");
  await page.goto("/settings");
  const section = page.getByRole("region", { name: "API keys" });
  await section.getByLabel("Key name").fill("script");
  await section.getByLabel("Password", { exact: true }).fill(PASSWORD);
  await section.getByRole("button", { name: "Create key" }).click();
  const key = (await section.getByTestId("new-api-key").textContent())!.trim();
  await section.getByRole("button", { name: "Copy key" }).click();
  await expect(section.getByText("Copied", { exact: true })).toBeVisible();
  expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(key);
});
