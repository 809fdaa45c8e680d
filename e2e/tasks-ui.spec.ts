import { test, expect, type Locator } from "@playwright/test";
import path from "node:path";
import {
  createTask,
  isTaskListRequest,
  newChat,
  openTasksSheet,
  send,
  setHidden,
  SHOTS,
  signIn,
  signUp,
  tasksTrigger,
} from "./helpers";

function section(sheet: Locator, name: "Active" | "Recent") {
  return sheet.getByRole("region", { name });
}

function row(scope: Locator, title: string) {
  return scope.getByRole("listitem", { name: title });
}

test("sheet opens and closes by keyboard, focus returns to the trigger; empty state", async ({ page }) => {
  await signUp(page, "Keys");
  const trigger = tasksTrigger(page);
  await expect(trigger).toBeEnabled();
  await expect(trigger).toHaveAccessibleDescription("No active tasks");

  // Reachable with Tab from the top of the page.
  await page.locator("body").focus();
  let reached = false;
  for (let i = 0; i < 30 && !reached; i++) {
    await page.keyboard.press("Tab");
    reached = await trigger.evaluate((el) => el === document.activeElement);
  }
  expect(reached).toBe(true);

  await page.keyboard.press("Enter");
  const sheet = page.getByRole("dialog", { name: "Background tasks" });
  await expect(sheet).toBeVisible();
  await expect(sheet.getByRole("heading", { name: "Background tasks" })).toBeVisible();
  await expect(sheet.getByText("All your tasks, across conversations")).toBeVisible();
  await expect(sheet.getByText("No background tasks yet", { exact: true })).toBeVisible();
  // Focus moved into the sheet and Tab stays there.
  await expect(sheet.getByRole("button", { name: "Close" })).toBeFocused();
  await page.keyboard.press("Tab");
  expect(await sheet.evaluate((el) => el.contains(document.activeElement))).toBe(true);

  await page.keyboard.press("Escape");
  await expect(sheet).toBeHidden();
  await expect(trigger).toBeFocused();

  // Space opens too; the close button closes and returns focus as well.
  await page.keyboard.press("Space");
  await expect(sheet).toBeVisible();
  await sheet.getByRole("button", { name: "Close" }).press("Enter");
  await expect(sheet).toBeHidden();
  await expect(trigger).toBeFocused();

  // Without an open conversation the sheet lists every task, each with a link to its conversation.
  const created = await page.request.post("/api/conversations", { data: { title: "Battery desk" } });
  const { id: conversationId } = (await created.json()) as { id: string };
  await createTask(page, conversationId, "Sodium-ion outlook", { steps: 3, stepMs: 600_000 });
  await expect(trigger).toHaveAccessibleDescription("1 active");
  await trigger.press("Enter");
  const item = sheet.getByRole("region", { name: "Active" }).getByRole("listitem", { name: "Sodium-ion outlook" });
  await expect(item).toBeVisible();
  await expect(item.getByRole("link", { name: "Battery desk" })).toHaveAttribute("href", `/c/${conversationId}`);
});

test("a finishing task moves from Active to Recent, with badge and a single announcement", async ({ page }) => {
  await signUp(page, "Mover");
  const conversationId = await newChat(page);
  const sheet = await openTasksSheet(page);
  await expect(sheet.getByText("Tasks of this conversation")).toBeVisible();
  await expect(sheet.getByText("No background tasks yet", { exact: true })).toBeVisible();

  const title = "EU battery supply chain";
  await createTask(page, conversationId, title, { steps: 2, stepMs: 1500 });

  const active = section(sheet, "Active");
  const recent = section(sheet, "Recent");
  await expect(row(active, title)).toBeVisible();
  // The trigger is outside the modal (hidden from the accessibility tree while it is open): find it by test id.
  const trigger = page.getByTestId("tasks-trigger");
  await expect(trigger).toHaveAccessibleDescription("1 active");
  await expect(page.getByTestId("tasks-badge")).toHaveText("1");
  await expect(row(active, title).getByRole("button", { name: "Cancel task" })).toBeVisible();

  await expect(row(recent, title)).toBeVisible({ timeout: 20_000 });
  await expect(row(active, title)).toHaveCount(0);
  await expect(row(recent, title)).toContainText("Succeeded");
  await expect(row(recent, title).getByRole("button", { name: "Cancel task" })).toHaveCount(0);
  await expect(active.getByText("Nothing is running right now.")).toBeVisible();
  await expect(trigger).toHaveAccessibleDescription("No active tasks");
  await expect(page.getByTestId("tasks-badge")).toHaveCount(0);

  // Announced once, politely, in the region the user can hear (inside the open sheet).
  const live = page.locator('[aria-live="polite"]').filter({ hasText: `${title}: succeeded` });
  await expect(live).toHaveCount(1);

  // Details: the final body and its version.
  await row(recent, title).getByRole("button", { name: "View details" }).click();
  await expect(row(recent, title).getByRole("button", { name: "View details" })).toHaveAttribute(
    "aria-expanded",
    "true",
  );
  await expect(row(recent, title).getByText("Final", { exact: true })).toBeVisible();
  await expect(
    row(recent, title)
      .getByText(/^v\d+$/)
      .first(),
  ).toBeVisible();
  await expect(
    row(recent, title)
      .getByText("Delivered")
      .or(row(recent, title).getByText(/Waiting to send|Sending|Nothing to tell you yet/)),
  ).toBeVisible();
});

test("cancel: Cancelling… at once, a failed cancel rolls back with a toast, then cancelled", async ({ page }) => {
  await signUp(page, "Canceller");
  const conversationId = await newChat(page);
  const title = "Slow market sizing";
  await createTask(page, conversationId, title, { steps: 3, stepMs: 600_000 });
  const sheet = await openTasksSheet(page);
  const task = row(section(sheet, "Active"), title);
  await expect(task).toBeVisible();
  await expect(task).toContainText(/Queued|Running|Submitted/);

  // A refused cancel (no worker alive): optimistic "Cancelling…", then rollback and a toast.
  let release: () => void = () => {};
  const gate = new Promise<void>((resolve) => (release = resolve));
  await page.route("**/api/tasks/*/cancel", async (route) => {
    await gate;
    await route.fulfill({
      status: 503,
      contentType: "application/json",
      body: JSON.stringify({ error: { code: "unavailable", message: "No worker is running" } }),
    });
  });
  // Cancel asks first and says what is kept; "Keep it running" (focused first) and Escape cancel nothing.
  await task.getByRole("button", { name: "Cancel task" }).click();
  const confirm = page.getByRole("alertdialog", { name: `Cancel “${title}”?` });
  await expect(confirm).toBeVisible();
  await expect(confirm).toContainText("Anything it has already published stays");
  await expect(confirm.getByRole("button", { name: "Keep it running" })).toBeFocused();
  await page.keyboard.press("Enter");
  await expect(confirm).toBeHidden();
  await expect(task.getByRole("button", { name: "Cancel task" })).toBeFocused();
  await page.keyboard.press("Enter");
  await expect(confirm.getByRole("button", { name: "Keep it running" })).toBeFocused();
  await page.keyboard.press("Escape");
  await expect(confirm).toBeHidden();
  await expect(page.getByTestId("tasks-sheet")).toBeVisible();
  // Escape the moment focus lands in the dialog, before Radix listens for it (a render or two later): it still closes
  // the dialog, and only the dialog.
  await task.getByRole("button", { name: "Cancel task" }).evaluate((button: HTMLElement) => {
    const early = (e: FocusEvent) => {
      if (!(e.target instanceof Element) || !e.target.closest('[data-testid="cancel-confirm"]')) return;
      document.removeEventListener("focusin", early);
      e.target.dispatchEvent(new KeyboardEvent("keydown", { key: "Escape", bubbles: true, cancelable: true }));
    };
    document.addEventListener("focusin", early);
    button.click();
  });
  await expect(confirm).toBeHidden();
  await expect(page.getByTestId("tasks-sheet")).toBeVisible();
  await expect(task.getByRole("button", { name: "Cancel task" })).toBeVisible();
  await task.getByRole("button", { name: "Cancel task" }).click();
  await confirm.getByRole("button", { name: "Yes, cancel it" }).click();
  await expect(task.getByRole("button", { name: "Cancelling…" })).toBeVisible();
  release();
  await expect(page.getByRole("alert").filter({ hasText: "No worker is running" })).toBeVisible();
  await expect(task.getByRole("button", { name: "Cancel task" })).toBeVisible();
  await page.unroute("**/api/tasks/*/cancel");

  // The real cancel, held back until we have seen the optimistic state (the worker cancels within milliseconds).
  let pass: () => void = () => {};
  const held = new Promise<void>((resolve) => (pass = resolve));
  await page.route("**/api/tasks/*/cancel", async (route) => {
    await held;
    await route.continue();
  });
  const response = page.waitForResponse((r) => r.url().includes("/cancel") && r.request().method() === "POST");
  await task.getByRole("button", { name: "Cancel task" }).click();
  await page.getByRole("button", { name: "Yes, cancel it" }).click();
  await expect(task.getByRole("button", { name: "Cancelling…" })).toBeVisible();
  await expect(task.getByRole("button", { name: "Cancelling…" })).toHaveAttribute("aria-disabled", "true");
  pass();
  expect((await response).status()).toBe(200);
  await page.unroute("**/api/tasks/*/cancel");

  // After a reload the server's cancelRequested keeps it "Cancelling…" (or it is already cancelled): never "Cancel task".
  await page.reload();
  const again = await openTasksSheet(page);
  await expect(again.getByRole("listitem", { name: title })).toBeVisible();
  await expect(again.getByRole("listitem", { name: title }).getByRole("button", { name: "Cancel task" })).toHaveCount(
    0,
  );

  const done = row(section(again, "Recent"), title);
  await expect(done).toBeVisible({ timeout: 20_000 });
  await expect(done).toContainText("Cancelled");
  await done.getByRole("button", { name: "View details" }).click();
  await expect(done.getByText("Cancel attempts")).toBeVisible();
});

test("two browser contexts of one account stay in sync through the feed", async ({ browser }) => {
  const a = await browser.newContext();
  const pageA = await a.newPage();
  const email = await signUp(pageA, "Twin");
  const conversationId = await newChat(pageA);

  const b = await browser.newContext();
  const pageB = await b.newPage();
  await signIn(pageB, email);
  await pageB.goto(`/c/${conversationId}`);

  const sheetA = await openTasksSheet(pageA);
  const sheetB = await openTasksSheet(pageB);
  await expect(sheetB.getByText("No background tasks yet", { exact: true })).toBeVisible();

  const title = "Shared lithium outlook";
  await createTask(pageA, conversationId, title, { steps: 3, stepMs: 600_000 });
  await expect(row(section(sheetA, "Active"), title)).toBeVisible();
  await expect(row(section(sheetB, "Active"), title)).toBeVisible();

  // From here on B's polls fail: only the event feed can tell it what A did.
  await pageB.route(
    (url) => isTaskListRequest(url.toString()),
    (route) => route.abort(),
  );

  await row(section(sheetA, "Active"), title).getByRole("button", { name: "Cancel task" }).click();
  await pageA.getByRole("button", { name: "Yes, cancel it" }).click();
  await expect(row(section(sheetB, "Recent"), title)).toContainText("Cancelled", { timeout: 20_000 });
  await expect(row(section(sheetB, "Active"), title)).toHaveCount(0);
  await expect(row(section(sheetA, "Recent"), title)).toContainText("Cancelled");
  await pageB.keyboard.press("Escape");
  await expect(tasksTrigger(pageB)).toHaveAccessibleDescription("No active tasks");

  await a.close();
  await b.close();
});

test("list polling: 3 s with active tasks, 15 s idle, none while the tab is hidden", async ({ page }) => {
  // The intervals are the page's own timers: Playwright's clock runs the windows in fake time instead of waiting
  // 54 s. Between windows it runs as usual (the feed, the cancel, React's batched updates need it).
  await page.clock.install();
  // Every task-list fetch the page starts, at the page's (fake) time, and how many have not answered yet.
  await page.addInitScript(() => {
    const seen = { at: [] as number[], pending: 0 };
    Object.assign(window, { __taskLists: seen });
    const fetch = window.fetch.bind(window);
    window.fetch = async (input, init) => {
      const href = typeof input === "string" ? input : input instanceof URL ? input.href : input.url;
      if (new URL(href, location.href).pathname !== "/api/tasks" || (init?.method ?? "GET") !== "GET")
        return fetch(input, init);
      seen.at.push(Date.now());
      seen.pending++;
      try {
        const res = await fetch(input, init);
        // Answered once the body is in: React Query drops an interval's fetch while the previous one still runs.
        await res.clone().arrayBuffer();
        return res;
      } finally {
        seen.pending--;
      }
    };
  });
  type Seen = { at: number[]; pending: number };
  const seen = () => page.evaluate(() => (window as unknown as { __taskLists: Seen }).__taskLists);

  await signUp(page, "Poller");
  const conversationId = await newChat(page);
  const task = await createTask(page, conversationId, "Long polling subject", { steps: 3, stepMs: 600_000 });
  await expect(tasksTrigger(page)).toHaveAccessibleDescription("1 active");

  const gaps: Record<string, number[]> = {};
  const STEP_MS = 500;
  const countDuring = async (ms: number, label: string) => {
    // Paused, the page's time moves only as far as runFor takes it: the window is exactly `ms` long. A second ahead:
    // the page's time runs on between reading it and pausing, and pauseAt cannot go back.
    await page.clock.pauseAt(await page.evaluate(() => Date.now() + 1000));
    await expect.poll(async () => (await seen()).pending).toBe(0);
    const before = (await seen()).at.length;
    for (let t = 0; t < ms; t += STEP_MS) {
      await page.clock.runFor(STEP_MS);
      // A fetch in flight while the clock runs on would swallow the next tick: let it answer first.
      await expect.poll(async () => (await seen()).pending).toBe(0);
    }
    const at = (await seen()).at.slice(before);
    await page.clock.resume();
    gaps[label] = at.slice(1).map((t, i) => t - at[i]);
    return at.length;
  };

  const activeVisible = await countDuring(15_000, "active");
  expect(activeVisible).toBeGreaterThanOrEqual(4);
  expect(activeVisible).toBeLessThanOrEqual(6);

  await setHidden(page, true);
  const hidden = await countDuring(8000, "hidden");
  expect(hidden).toBe(0);

  const beforeVisible = (await seen()).at.length;
  await setHidden(page, false);
  await expect.poll(async () => (await seen()).at.length - beforeVisible, { timeout: 5000 }).toBeGreaterThan(0);

  // Nothing active any more: the slow interval.
  const res = await page.request.post(`/api/tasks/${task.id}/cancel`);
  expect(res.status()).toBe(200);
  await expect(tasksTrigger(page)).toHaveAccessibleDescription("No active tasks", { timeout: 20_000 });
  const idleVisible = await countDuring(31_000, "idle");
  expect(idleVisible).toBeGreaterThanOrEqual(1);
  expect(idleVisible).toBeLessThanOrEqual(3);

  const rates = {
    activeVisiblePerMin: Math.round((activeVisible * 60) / 15),
    idleVisiblePerMin: Math.round((idleVisible * 60) / 31),
    hiddenPerMin: hidden * 7.5,
    gapsMs: gaps,
  };
  console.log(`task list requests per minute: ${JSON.stringify(rates)}`);
  test.info().annotations.push({ type: "list requests per minute", description: JSON.stringify(rates) });
});

test.describe("phone layout", () => {
  test.use({ viewport: { width: 390, height: 844 }, deviceScaleFactor: 2, isMobile: true, hasTouch: true });

  test("390×844 screenshots of chat and sheet", async ({ page }) => {
    await signUp(page, "Pocket");
    await page.getByRole("button", { name: "New chat" }).click();
    await page.waitForURL(/\/c\/[^/]+$/);
    const conversationId = page.url().split("/c/")[1];
    await send(page, "research the EU battery supply chain");
    await expect(page.locator('[data-kind="body"]').first()).toBeVisible({ timeout: 30_000 });
    await expect(page.locator('[data-kind="terminal"]')).toHaveCount(1, { timeout: 30_000 });
    await expect(page.locator('[data-kind="notice"]')).toHaveCount(1, { timeout: 30_000 });
    // The narration of the notice, fully stored (a still-streaming reply would make the screenshot vary).
    await expect(page.locator('[data-kind="assistant"]:not([data-streaming])')).toHaveCount(2, { timeout: 30_000 });
    await createTask(page, conversationId, "Cobalt price outlook", { steps: 3, stepMs: 600_000 });
    await expect(tasksTrigger(page)).toHaveAccessibleDescription("1 active");
    await expect(page.locator('[data-kind="progress"]').filter({ hasText: "Planned 3 sections" })).toBeVisible();
    await page.screenshot({ path: path.join(SHOTS, "chat-390.png") });

    // Every header control is inside the viewport.
    for (const name of ["Conversations", "Background tasks", "New chat", "Account"]) {
      const box = await page.getByRole("button", { name, exact: true }).boundingBox();
      expect(box, name).not.toBeNull();
      expect(box!.x + box!.width, name).toBeLessThanOrEqual(390);
    }

    await page.getByLabel("Delivery").selectOption({ label: "Tell me by" });
    await expect(page.getByLabel("Due in (minutes)")).toBeVisible();
    await page.screenshot({ path: path.join(SHOTS, "composer-delivery-390.png") });
    await page.getByLabel("Delivery").selectOption({ label: "No deadline" });

    const sheet = await openTasksSheet(page);
    const box = await sheet.boundingBox();
    expect(box?.width).toBe(390);
    await expect(row(section(sheet, "Recent"), "EU Battery Supply Chain")).toBeVisible();
    await expect(row(section(sheet, "Active"), "Cobalt price outlook")).toBeVisible();
    await page.screenshot({ path: path.join(SHOTS, "sheet-390.png") });

    const finished = row(section(sheet, "Recent"), "EU Battery Supply Chain");
    await finished.getByRole("button", { name: "View details" }).click();
    await expect(finished.getByText("Final", { exact: true })).toBeVisible();
    // The end of the details: notices (outcome, link to the body) and the notification state.
    await expect(finished.getByText("Delivered")).toBeVisible();
    await finished.getByText("Delivered").scrollIntoViewIfNeeded();
    await page.screenshot({ path: path.join(SHOTS, "sheet-details-390.png") });

    await page.keyboard.press("Escape");
    await expect(sheet).toBeHidden();
    await expect(tasksTrigger(page)).toBeFocused();
  });
});

test("Chinese UI: translated sheet, statuses and composer controls", async ({ page }) => {
  await signUp(page, "Lin");
  const conversationId = await newChat(page);
  await createTask(page, conversationId, "电池供应链", { steps: 3, stepMs: 600_000 });

  await page.getByLabel("Language").selectOption({ label: "中文" });
  await expect(page.locator("html")).toHaveAttribute("lang", "zh-CN");
  await expect(page.getByRole("button", { name: "后台任务", exact: true })).toBeVisible();
  await expect(page.getByLabel("告知时间")).toBeVisible();
  await page.getByLabel("告知时间").selectOption({ label: "限时内告诉我" });
  await expect(page.getByLabel("期限（分钟）")).toBeVisible();
  await expect(page.getByLabel("做不完也告诉我")).toBeVisible();
  await page.getByLabel("告知时间").selectOption({ label: "不设期限" });

  const sheet = await openTasksSheet(page, "后台任务");
  await expect(sheet.getByRole("heading", { name: "进行中" })).toBeVisible();
  await expect(sheet.getByRole("heading", { name: "最近" })).toBeVisible();
  const task = sheet.getByRole("listitem", { name: "电池供应链" });
  await expect(task.getByRole("button", { name: "取消任务" })).toBeVisible();
  await expect(task.getByRole("button", { name: "查看详情" })).toBeVisible();
  await expect(task).toContainText(/排队中|运行中|已提交/);
  await task.getByRole("button", { name: "取消任务" }).click();
  const confirm = page.getByRole("alertdialog", { name: "取消“电池供应链”？" });
  await expect(confirm).toContainText("已经发布的内容会保留在对话中");
  await confirm.getByRole("button", { name: "确认取消" }).click();
  await expect(confirm).toBeHidden();
  await expect(
    task
      .getByRole("button", { name: "正在取消…" })
      .or(sheet.getByRole("region", { name: "最近" }).getByText("已取消", { exact: true })),
  ).toBeVisible();
  await expect(sheet.getByRole("region", { name: "最近" }).getByRole("listitem", { name: "电池供应链" })).toContainText(
    "已取消",
    {
      timeout: 20_000,
    },
  );
  await page.screenshot({ path: path.join(SHOTS, "sheet-zh.png") });
  await page.keyboard.press("Escape");
  await expect(page.getByRole("button", { name: "后台任务", exact: true })).toBeFocused();
});
