import { test, expect } from "@playwright/test";
import { newChat, send, signUp } from "./helpers";

test("research from the chat, leave, come back: progress → body → terminal → notice → narration, once each", async ({
  page,
}) => {
  await signUp(page, "Researcher");
  const conversationId = await newChat(page);
  await send(page, "research the EU battery supply chain in depth");

  // The turn ends at once with a short acknowledgement, without reciting a task id.
  const ack = page.locator('[data-kind="assistant"]').first();
  await expect(ack).toContainText("in the background");
  const tasks = await page.request.get(`/api/tasks?conversationId=${conversationId}&scope=all`);
  const [task] = (await tasks.json()).tasks;
  expect(task.title).toMatch(/EU battery supply chain/i);
  await expect(ack).not.toContainText(task.id);

  // Leave: nothing in the browser is needed for the work to go on.
  await page.goto("about:blank");
  await expect
    .poll(async () => (await (await page.request.get(`/api/tasks/${task.id}`)).json()).task.notification.status, {
      timeout: 45_000,
    })
    .toBe("delivered");

  await page.goto(`/c/${conversationId}`);
  const api = await (await page.request.get(`/api/conversations/${conversationId}/messages`)).json();
  const kinds: string[] = api.messages.map((m: { kind: string }) => m.kind);
  const at = (k: string, from = 0) => kinds.indexOf(k, from);
  // Stored order: user, then (the ack may land after the first progress line: the task starts
  // while the turn is still writing) progress…, partial body, progress…, final body, terminal, notice, narration.
  expect(kinds[0]).toBe("user");
  expect(at("assistant")).toBeLessThan(at("body"));
  const firstProgress = at("progress");
  const partial = at("body");
  const final = at("body", partial + 1);
  const terminal = at("terminal");
  const notice = at("notice");
  const narration = at("assistant", at("assistant") + 1);
  expect(firstProgress).toBeGreaterThan(0);
  expect(partial).toBeGreaterThan(firstProgress);
  expect(final).toBeGreaterThan(partial);
  expect(terminal).toBeGreaterThan(final);
  expect(notice).toBeGreaterThan(terminal);
  expect(narration).toBeGreaterThan(notice);
  for (const k of ["terminal", "notice"]) expect(kinds.filter((x) => x === k)).toHaveLength(1);
  expect(kinds.filter((x) => x === "assistant")).toHaveLength(2);

  // The page shows the same facts, in the same order, once each.
  await expect(page.locator('[data-kind="terminal"]')).toHaveCount(1);
  await expect(page.locator('[data-kind="notice"]')).toHaveCount(1);
  await expect(page.locator('[data-kind="body"]')).toHaveCount(2);
  await expect(page.locator('[data-kind="assistant"]')).toHaveCount(2);
  await expect(page.locator('[data-kind="progress"]').first()).toBeVisible();
  const domKinds = await page.locator("[data-kind]").evaluateAll((els) => els.map((e) => e.getAttribute("data-kind")));
  const order = ["terminal", "notice"].map((k) => domKinds.indexOf(k));
  expect(order[0]).toBeLessThan(order[1]);
  expect(domKinds.lastIndexOf("assistant")).toBeGreaterThan(order[1]);
  expect(domKinds.lastIndexOf("body")).toBeLessThan(order[0]);
  await expect(page.locator('[data-kind="assistant"]').last()).toContainText("EU battery supply chain", {
    ignoreCase: true,
  });
  await expect(page.locator('[data-kind="body"]').last()).toContainText(/final/i);

  // Reopening adds nothing: no model request, no second notice.
  await page.reload();
  await expect(page.locator('[data-kind="notice"]')).toHaveCount(1);
  await expect(page.locator('[data-kind="assistant"]')).toHaveCount(2);
});
