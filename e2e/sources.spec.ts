import { test, expect } from "@playwright/test";
import { createTask, openNewConversation, openTasksSheet, signUp } from "./helpers";

// Research against the suite's research peer (tests/research-peer-server.ts, started by playwright.config.ts): a
// SearXNG-shaped search and loopback pages about Lake Zorb. The report lists what it read and links every citation.

test("a research report lists its sources with links, its citations jump to them, and the sheet and share page show them", async ({
  browser,
}) => {
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  const page = await context.newPage();
  await signUp(page, "Sourcer");
  const conversationId = await openNewConversation(page);
  await createTask(page, conversationId, "Lake Zorb otters", { steps: 2, stepMs: 0 });

  const final = page.locator('[data-kind="body"][data-partial="false"]');
  await expect(final).toBeVisible({ timeout: 45_000 });
  await expect(final.getByRole("heading", { name: "Summary" })).toBeVisible();

  // The list: each page by its title, opening in a new tab without telling the page where the reader came from.
  const list = final.getByTestId("report-sources");
  await expect(list.getByRole("heading", { name: "Sources" })).toBeVisible();
  const entry = list.getByRole("link", { name: "History of the Lake Zorb otters" });
  await expect(entry).toHaveAttribute("href", /^http:\/\/127\.0\.0\.1:\d+\/zorb\/history$/);
  await expect(entry).toHaveAttribute("target", "_blank");
  await expect(entry).toHaveAttribute("rel", "noopener noreferrer");
  await expect(list.getByRole("listitem")).toHaveCount(4);

  // A fact only the page holds, cited: its citation jumps to the page's entry.
  const fact = final.locator("p", { hasText: "Ada Quillfeather" }).first();
  const citation = fact.getByRole("link", { name: /^\[\d+\]$/ }).first();
  const n = (await citation.innerText()).replace(/\D/g, "");
  const target = (await citation.getAttribute("href"))!;
  expect(target).toMatch(new RegExp(`-source-${n}$`));
  await citation.click();
  await expect(page).toHaveURL(new RegExp(`${target}$`));
  await expect(page.locator(target)).toContainText("History of the Lake Zorb otters");
  await expect(page.locator(target)).toBeInViewport();

  // The sheet says how many pages were read.
  const sheet = await openTasksSheet(page);
  await expect(sheet.getByTestId("task-sources").first()).toHaveText("4 sources read");
  await page.keyboard.press("Escape");

  // The full-width view: the same list and working citations.
  await final.getByRole("button", { name: "Open report" }).click();
  const view = page.getByTestId("report-view");
  await expect(view.getByTestId("report-sources").getByRole("listitem")).toHaveCount(4);
  await expect(view.getByRole("navigation", { name: "Contents" }).getByRole("link", { name: "Sources" })).toBeVisible();
  await view
    .getByRole("link", { name: /^\[\d+\]$/ })
    .first()
    .click();
  await expect(view.locator('[data-testid="report-sources"] li:target')).toBeInViewport();

  // A share link shows the list to anyone holding it.
  await view.getByRole("button", { name: "Share", exact: true }).click();
  await view.getByTestId("report-share").getByRole("button", { name: "Create link" }).click();
  const url = await view.getByTestId("report-share").getByRole("textbox", { name: "Share link" }).inputValue();
  const reader = await (await browser.newContext()).newPage();
  await reader.goto(url);
  const shared = reader.getByTestId("shared-report");
  const sharedEntry = shared.getByTestId("report-sources").getByRole("link", { name: "What Lake Zorb otters eat" });
  await expect(sharedEntry).toHaveAttribute("rel", "noopener noreferrer");
  await expect(shared.getByRole("link", { name: /^\[\d+\]$/ }).first()).toHaveAttribute("href", /^#shared-source-\d+$/);
  await context.close();
});
