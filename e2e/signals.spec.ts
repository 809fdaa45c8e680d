import { test, expect, type Locator, type Page } from "@playwright/test";
import { randomUUID } from "node:crypto";
import path from "node:path";
import { createTask, newEmail, SHOTS, sidebar, signIn, signUp, startFromHome } from "./helpers";

// One task, one signal: a finished task is one unread however many messages it wrote, a
// result promised at a time is announced at that time, read marks are the same on every
// device, and the toast that announces a task never sits on the composer.

interface Message {
  kind: string;
  runId: string | null;
  taskId: string | null;
  seq: number;
}

async function messagesOf(page: Page, conversationId: string): Promise<Message[]> {
  const res = await page.request.get(`/api/conversations/${conversationId}/messages`);
  return ((await res.json()) as { messages: Message[] }).messages;
}

async function unreadOf(page: Page, conversationId: string): Promise<number> {
  const res = await page.request.get("/api/conversations");
  const list = (await res.json()) as { conversations: { id: string; unread: number }[] };
  return list.conversations.find((c) => c.id === conversationId)!.unread;
}

/** Waits until a task's notice and the reply narrating it are both written. */
async function settled(page: Page, conversationId: string, taskId: string): Promise<void> {
  await expect
    .poll(
      async () => {
        const messages = await messagesOf(page, conversationId);
        const notice = messages.find((m) => m.kind === "notice" && m.taskId === taskId);
        return Boolean(notice && messages.some((m) => m.kind === "assistant" && m.runId && m.seq > notice.seq));
      },
      { timeout: 30_000 },
    )
    .toBe(true);
}

async function apart(a: Locator, b: Locator): Promise<void> {
  const [x, y] = [await a.boundingBox(), await b.boundingBox()];
  expect(x && y).toBeTruthy();
  const overlap =
    x!.x < y!.x + y!.width && y!.x < x!.x + x!.width && x!.y < y!.y + y!.height && y!.y < x!.y + x!.height;
  expect(overlap, `${JSON.stringify(x)} overlaps ${JSON.stringify(y)}`).toBe(false);
}

for (const viewport of [
  { width: 1280, height: 800 },
  { width: 390, height: 844 },
]) {
  test(`a finished task is one unread, its toast names it once and leaves the composer free (${viewport.width})`, async ({
    page,
  }) => {
    await page.setViewportSize(viewport);
    await signUp(page, `Signal${viewport.width}`);
    const tides = await startFromHome(page, "Tell me about tides");
    const other = await startFromHome(page, "Tell me about canals");

    const task = await createTask(page, tides, "Tides", { steps: 2, stepMs: 0 });
    // Named like its chat: said once.
    const toast = page.getByTestId("toast").filter({ hasText: "“Tides” finished." });
    await expect(toast).toBeVisible({ timeout: 30_000 });
    await expect(toast).not.toContainText("finished in");
    await apart(toast, page.getByLabel("Message"));
    await apart(toast, page.getByRole("button", { name: "Send" }));
    await page.screenshot({ path: path.join(SHOTS, `signal-toast-${viewport.width}.png`) });

    // Result, terminal line, notice and the reply narrating them: one moment, one unread, everywhere.
    await settled(page, tides, task.id);
    expect(await unreadOf(page, tides)).toBe(1);
    await expect(page).toHaveTitle("(1) Canals · Herald");
    if (viewport.width >= 1024)
      await expect(sidebar(page).getByRole("link", { name: /Tides/ })).toContainText("1 unread");
    expect(other).not.toBe(tides);
  });
}

test("a result promised at a time raises nothing before it, then one signal at it", async ({ page }) => {
  await signUp(page, "Promise");
  const tides = await startFromHome(page, "Tell me about tides");
  await startFromHome(page, "Tell me about canals");

  const task = await createTask(page, tides, "Spring tides", { steps: 1, stepMs: 0 }, { mode: "at", dueInSeconds: 15 });
  const dueAt = Date.parse(task.delivery.dueAt!);
  // The work is done and its report written long before the promised moment.
  await expect
    .poll(async () => (await messagesOf(page, tides)).some((m) => m.kind === "terminal" && m.taskId === task.id), {
      timeout: 20_000,
    })
    .toBe(true);
  await expect
    .poll(async () => (await messagesOf(page, tides)).some((m) => m.kind === "assistant" && m.runId !== null), {
      timeout: 20_000,
    })
    .toBe(true);
  expect(await unreadOf(page, tides)).toBe(0);
  await expect(page).toHaveTitle("Canals · Herald");
  await expect(sidebar(page).getByRole("link", { name: /Tides/ })).not.toContainText("unread");
  await expect(page.getByTestId("toast")).toHaveCount(0);
  expect(Date.now()).toBeLessThan(dueAt);

  // At the promised time: the notice, one toast, one unread.
  const toast = page.getByTestId("toast").filter({ hasText: "“Spring tides” finished in Tides." });
  await expect(toast).toBeVisible({ timeout: 40_000 });
  expect(Date.now()).toBeGreaterThanOrEqual(dueAt);
  await expect(page).toHaveTitle("(1) Canals · Herald");
  expect(await unreadOf(page, tides)).toBe(1);
});

test("reading a chat on one device clears its unread mark on another at once", async ({ page, browser }) => {
  const email = newEmail("devices");
  await signUp(page, "Devices", email);
  const tides = await startFromHome(page, "Tell me about tides");
  await startFromHome(page, "Tell me about canals");

  const phone = await browser.newContext({ viewport: { width: 390, height: 844 } });
  const other = await phone.newPage();
  await signIn(other, email);
  await other.goto("/");

  // The desktop reads the chat while a reply arrives there.
  await page.goto(`/c/${tides}`);
  const res = await page.request.post(`/api/conversations/${tides}/messages`, {
    data: { content: "And spring tides?", clientMessageId: randomUUID() },
  });
  expect(res.status()).toBe(202);
  await expect(page.locator('[data-kind="assistant"]')).toHaveCount(2);
  await expect.poll(() => unreadOf(page, tides)).toBe(0);
  // The phone shows what the desktop did: no count in its title, no dot in its drawer.
  await expect(other).toHaveTitle("Herald");
  await other.getByRole("button", { name: "Conversations" }).click();
  await expect(
    other.getByRole("dialog", { name: "Conversations" }).getByRole("link", { name: /Tides/ }),
  ).not.toContainText("unread");
  await phone.close();
});
