import { expect, test } from "@playwright/test";
import { newChat, openTasksSheet, send, signUp } from "./helpers";

// The composer's "Work with" picker: Best fit, Herald's own research and each remote the operator
// labelled. playwright.config.ts configures one MCP server with the label "Market data" (its url leads nowhere:
// the test is about the choice reaching the task, not about the remote).

test("Work with: the choices carry labels only, a pick sends the turn's task to that driver, and the picker resets", async ({
  page,
}) => {
  await signUp(page, "WorkWith");
  const conversationId = await newChat(page);
  const picker = page.getByTestId("work-with-picker");
  const select = picker.getByLabel("Work with");
  await expect(select.locator("option")).toHaveText(["Best fit", "Herald research", "Market data"]);
  await expect(select).toHaveValue("");
  // Nothing the operator keeps internal reaches the page: not the server's name, url or tool.
  const html = await page.content();
  for (const s of ["e2e-market-internal", "127.0.0.1:45871", "market_tool"]) expect(html).not.toContain(s);

  await select.selectOption({ label: "Market data" });
  await send(page, "research the container shipping market this quarter");
  await expect(select).toHaveValue("");
  await expect
    .poll(
      async () =>
        (await (await page.request.get(`/api/tasks?conversationId=${conversationId}&scope=all`)).json()).tasks.map(
          (t: { driver: string }) => t.driver,
        ),
      { timeout: 30_000 },
    )
    .toEqual(["mcp"]);

  // The remote task's details keep its clocks apart: no deadline was asked, the remote has said nothing yet.
  const sheet = await openTasksSheet(page);
  await sheet.getByRole("button", { name: "View details" }).first().click();
  const timing = sheet.getByTestId("remote-timing");
  await expect(timing).toContainText("Deadline");
  await expect(timing).toContainText("none");
  await expect(timing).toContainText("Remote run limit");
  await expect(timing).toContainText("Polled every");
  await page.keyboard.press("Escape");

  await page.getByLabel("Language", { exact: true }).selectOption({ label: "中文" });
  await expect(page.getByTestId("work-with-picker").getByLabel("交给").locator("option")).toHaveText([
    "自动选择",
    "Herald 研究",
    "Market data",
  ]);
});
