import { test, expect, type Page } from "@playwright/test";
import { randomUUID } from "node:crypto";
import path from "node:path";
import { createTask, setHidden, SHOTS, sidebar, signUp, startFromHome } from "./helpers";

/** A turn posted without this page: the reply arrives over the feed only. */
async function postElsewhere(page: Page, conversationId: string, content: string): Promise<void> {
  const res = await page.request.post(`/api/conversations/${conversationId}/messages`, {
    data: { content, clientMessageId: randomUUID() },
  });
  expect(res.status()).toBe(202);
}

function favicon(page: Page) {
  return page.locator("link[data-away-icon]");
}

test("unread marks follow the account across pages; tab title and favicon carry the count", async ({
  page,
  context,
}) => {
  await signUp(page, "Away");
  const first = await startFromHome(page, "Tell me about lighthouses");
  const second = await startFromHome(page, "Tell me about canals");
  await expect(page).toHaveTitle("Canals · Herald");
  await expect(favicon(page)).toHaveAttribute("data-unread", "0");

  // A reply lands in the chat that is not open: a dot in the sidebar, a count in the title and the favicon.
  await postElsewhere(page, first, "And foghorns?");
  const firstLink = sidebar(page).getByRole("link", { name: /Lighthouses/ });
  await expect(firstLink).toContainText("1 unread");
  await expect(page).toHaveTitle("(1) Canals · Herald");
  await expect(favicon(page)).toHaveAttribute("data-unread", "1");
  await page.screenshot({ path: path.join(SHOTS, "sidebar-unread-1280.png") });

  // Another page of the same account sees the same mark (it is stored), and reading there clears it here.
  const other = await context.newPage();
  await other.goto("/");
  await expect(sidebar(other).getByRole("link", { name: /Lighthouses/ })).toContainText("1 unread");
  await expect(other).toHaveTitle("(1) Herald");
  await sidebar(other)
    .getByRole("link", { name: /Lighthouses/ })
    .click();
  await expect(other).toHaveTitle("Lighthouses · Herald");
  await expect(firstLink).not.toContainText("unread");
  await expect(page).toHaveTitle("Canals · Herald");
  await other.close();

  // The open chat in a background tab collects unread replies until the reader comes back.
  await setHidden(page, true);
  await postElsewhere(page, second, "And locks?");
  await expect(page).toHaveTitle("(1) Canals · Herald");
  await setHidden(page, false);
  await expect(page).toHaveTitle("Canals · Herald");
  const marks = (await (await page.request.get("/api/conversations")).json()) as {
    conversations: { id: string; unread: number }[];
  };
  expect(marks.conversations.map((c) => c.unread)).toEqual([0, 0]);
});

test("all tasks from any chat, and a toast when a task in another chat finishes", async ({ page }) => {
  await signUp(page, "Tasker");
  const elsewhere = await startFromHome(page, "Tell me about glaciers");
  await startFromHome(page, "Tell me about deserts");

  // Research running in another chat is visible from this one.
  await createTask(page, elsewhere, "Glacier retreat", { steps: 3, stepMs: 600_000 });
  const allTasks = page.getByRole("link", { name: /All tasks/ });
  await expect(page.getByTestId("all-tasks-running")).toHaveText(/1/);
  await allTasks.click();
  await page.waitForURL("**/tasks");
  await expect(page.getByRole("heading", { level: 1 })).toHaveText("All tasks");
  await expect(page).toHaveTitle("All tasks · Herald");
  const running = page.getByRole("region", { name: "Running now" });
  const row = running.getByRole("listitem", { name: "Glacier retreat" });
  await expect(row).toContainText("in Glaciers");
  await expect(row).toHaveAttribute("data-status", /queued|running/);
  await row.getByRole("link", { name: "Open chat: Glacier retreat" }).click();
  await page.waitForURL(`**/c/${elsewhere}`);

  // A task finishing in another chat raises one toast with a way there.
  await page.goto("/tasks");
  await createTask(page, elsewhere, "Ice core summary", { steps: 1, stepMs: 0 });
  const toast = page.getByTestId("toast").filter({ hasText: "“Ice core summary” finished in Glaciers." });
  await expect(toast).toBeVisible();
  await expect(
    page.getByRole("region", { name: "Finished" }).getByRole("listitem", { name: "Ice core summary" }),
  ).toHaveAttribute("data-status", "succeeded");
  await page.screenshot({ path: path.join(SHOTS, "all-tasks-toast-1280.png") });
  await toast.getByRole("link", { name: "Open" }).click();
  await page.waitForURL(`**/c/${elsewhere}`);
  await expect(page.getByTestId("toast")).toHaveCount(0);
});

test("phone: the drawer carries search, All tasks and unread dots; the home composer fits", async ({ page }) => {
  await page.setViewportSize({ width: 390, height: 844 });
  await signUp(page, "Pocket");
  const chat = await startFromHome(page, "Tell me about bridges");
  await startFromHome(page, "Tell me about tunnels");
  await postElsewhere(page, chat, "And suspension bridges?");
  await expect(page).toHaveTitle("(1) Tunnels · Herald");
  await page.getByRole("button", { name: "Conversations" }).click();
  const drawer = page.getByRole("dialog", { name: "Conversations" });
  await expect(drawer.getByRole("searchbox", { name: "Search chats" })).toBeVisible();
  await expect(drawer.getByRole("link", { name: /All tasks/ })).toBeVisible();
  await expect(drawer.getByRole("link", { name: /Bridges/ })).toContainText("1 unread");
  await page.screenshot({ path: path.join(SHOTS, "drawer-unread-390.png") });
  await drawer.getByRole("link", { name: /Bridges/ }).click();
  await expect(drawer).toHaveCount(0);
  await expect(page).toHaveTitle("Bridges · Herald");
  await page.goto("/");
  await expect(page.getByRole("region", { name: "Examples" })).toBeVisible();
  await page.screenshot({ path: path.join(SHOTS, "home-composer-390.png") });
});
