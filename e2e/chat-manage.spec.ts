import { test, expect } from "@playwright/test";
import path from "node:path";
import { createTask, newChat, send, SHOTS, sidebar, signUp, startFromHome } from "./helpers";

test("home composer: focused on open, example prompts fill it, sending makes the chat; New chat saves no empty chat", async ({
  page,
}) => {
  await signUp(page, "Homer");
  await expect(page.getByLabel("Message")).toBeFocused();
  const examples = page.getByRole("region", { name: "Examples" });
  const example = examples.getByRole("button").first();
  const text = (await example.textContent()) ?? "";
  expect(text.length).toBeGreaterThan(10);
  await example.click();
  await expect(page.getByLabel("Message")).toHaveValue(text);
  await expect(page.getByLabel("Message")).toBeFocused();
  await expect(sidebar(page).getByRole("link")).toHaveCount(0);
  await page.screenshot({ path: path.join(SHOTS, "home-composer-1280.png") });

  // New chat twice: one draft, and it is not listed before anything is written in it.
  const first = await newChat(page);
  await expect(page.getByLabel("Message")).toBeFocused();
  await page.goto("/");
  const second = await newChat(page);
  expect(second).toBe(first);
  await expect(sidebar(page).getByRole("link")).toHaveCount(0);
  const list = await page.request.get("/api/conversations");
  expect(((await list.json()) as { conversations: unknown[] }).conversations).toHaveLength(1);

  // The title is the topic of the first message, not its raw text.
  await send(page, "Could you please tell me about the history of the printing press? Keep it short.");
  await expect(sidebar(page).getByRole("link", { name: /History of the printing press/ })).toBeVisible();
  await expect(page.getByRole("heading", { level: 1 })).toHaveText("History of the printing press");

  const viaHome = await startFromHome(page, "What is a heat pump?");
  expect(viaHome).not.toBe(first);
  await expect(sidebar(page).getByRole("link")).toHaveCount(2);
});

test("rename, pin, search and delete from the sidebar", async ({ page }) => {
  await signUp(page, "Manager");
  const older = await startFromHome(page, "Tell me about sodium batteries");
  const newer = await startFromHome(page, "Tell me about tidal power");
  const links = sidebar(page).getByRole("link");
  await expect(links.first()).toContainText("Tidal power");

  // Rename in place; the header follows.
  await page.getByRole("button", { name: "Options for Tidal power" }).click();
  await page.getByRole("button", { name: "Rename", exact: true }).click();
  const field = page.getByRole("textbox", { name: "Chat title" });
  await expect(field).toBeFocused();
  await field.fill("Ocean energy notes");
  await page.getByRole("button", { name: "Save", exact: true }).click();
  await expect(sidebar(page).getByRole("link", { name: /Ocean energy notes/ })).toBeVisible();
  await expect(page.getByRole("heading", { level: 1 })).toHaveText("Ocean energy notes");
  await page.reload();
  await expect(page.getByRole("heading", { level: 1 })).toHaveText("Ocean energy notes");

  // Pin the older chat: it moves first, under Pinned, and stays there after newer activity elsewhere.
  await page.getByRole("button", { name: "Options for Sodium batteries" }).click();
  await page.getByRole("button", { name: "Pin", exact: true }).click();
  const pinned = sidebar(page).getByRole("region", { name: "Pinned" });
  await expect(pinned.getByRole("link", { name: /Sodium batteries/ })).toBeVisible();
  await page.screenshot({ path: path.join(SHOTS, "sidebar-pinned-1280.png") });
  await send(page, "And wave power?");
  await expect(page.locator('[data-kind="assistant"]')).toHaveCount(2);
  await expect(links.first()).toContainText("Sodium batteries");
  await page.getByRole("button", { name: "Options for Sodium batteries" }).click();
  await page.getByRole("button", { name: "Unpin", exact: true }).click();
  await expect(pinned).toHaveCount(0);
  // Unpinning is not activity: the chat goes back to its place among the recent ones.
  await expect(links.first()).toContainText("Ocean energy notes");
  await expect(links.nth(1)).toContainText("Sodium batteries");

  // Search titles and messages; wildcards are plain text.
  const search = page.getByRole("searchbox", { name: "Search chats" });
  await search.fill("wave power");
  const results = page.getByRole("navigation", { name: "Search chats" });
  await expect(results.getByRole("link")).toHaveCount(1);
  await expect(results.getByRole("link")).toContainText("Ocean energy notes");
  await page.screenshot({ path: path.join(SHOTS, "sidebar-search-1280.png") });
  await search.fill("sodium");
  await expect(results.getByRole("link")).toHaveCount(1);
  await expect(results.getByRole("link")).toContainText("Sodium batteries");
  await search.fill("100%");
  await expect(results.getByText("No chat mentions “100%”.")).toBeVisible();
  await page.getByRole("button", { name: "Clear search" }).click();
  await expect(links).toHaveCount(2);

  // Delete the open chat with a running task: asked first, the task is cancelled, the page goes home.
  const task = await createTask(page, newer, "Tidal research", { steps: 3, stepMs: 600_000 });
  await page.goto(`/c/${newer}`);
  await page.getByRole("button", { name: "Options for Ocean energy notes" }).click();
  await page.getByRole("button", { name: "Delete", exact: true }).click();
  const confirm = page.getByRole("alertdialog", { name: "Delete “Ocean energy notes”?" });
  await expect(confirm).toContainText("cancelled");
  await confirm.getByRole("button", { name: "Cancel", exact: true }).click();
  await expect(confirm).toHaveCount(0);
  await expect(links).toHaveCount(2);
  await page.getByRole("button", { name: "Options for Ocean energy notes" }).click();
  await page.getByRole("button", { name: "Delete", exact: true }).click();
  await page.getByRole("button", { name: "Delete chat", exact: true }).click();
  await page.waitForURL((url) => url.pathname === "/");
  await expect(links).toHaveCount(1);
  await expect(links.first()).toContainText("Sodium batteries");
  expect((await page.request.get(`/api/conversations/${newer}`)).status()).toBe(404);
  await expect
    .poll(
      async () =>
        ((await (await page.request.get(`/api/tasks/${task.id}`)).json()) as { task: { cancelRequested: boolean } })
          .task.cancelRequested,
    )
    .toBe(true);
  expect(older).not.toBe(newer);
});
