import { test, expect, type Page } from "@playwright/test";
import { createTask, newChat, PASSWORD, signUp } from "./helpers";
import { fullBrowser } from "./browser";

// The notification offer and switch follow Notification.permission, which the headless shell reports as denied.
test.use(fullBrowser);

// Every page of the context records the system notifications it shows and can
// pretend to be hidden (document.visibilityState), as a background tab is.
declare global {
  interface Window {
    __shown: { title: string; body: string | undefined; instance: Notification }[];
    __hidden: boolean;
  }
}

async function recordNotifications(page: Page): Promise<void> {
  await page.addInitScript(() => {
    window.__shown = [];
    window.__hidden = false;
    const Real = window.Notification;
    class Recording extends Real {
      constructor(title: string, options?: NotificationOptions) {
        super(title, options);
        window.__shown.push({ title, body: options?.body, instance: this });
      }
    }
    Object.defineProperty(window, "Notification", { value: Recording, configurable: true });
    Object.defineProperty(document, "visibilityState", {
      configurable: true,
      get: () => (window.__hidden ? "hidden" : "visible"),
    });
    Object.defineProperty(document, "hidden", { configurable: true, get: () => window.__hidden });
  });
}

async function hide(page: Page): Promise<void> {
  await page.evaluate(() => {
    window.__hidden = true;
    document.dispatchEvent(new Event("visibilitychange"));
  });
}

const shown = (page: Page) => page.evaluate(() => window.__shown.map(({ title, body }) => ({ title, body })));

test("settings: language and time zone on the account, email off without SMTP, browser notifications while hidden", async ({
  browser,
}) => {
  const context = await browser.newContext({ permissions: ["notifications"] });
  const page = await context.newPage();
  await recordNotifications(page);
  const email = await signUp(page, "Settler");

  await page.getByRole("link", { name: "Settings" }).click();
  await expect(page).toHaveURL(/\/settings$/);

  // Email is a server capability: this server has no SMTP_URL.
  const emailControl = page.getByLabel("Email me when a promised result is due", { exact: true });
  await expect(emailControl).toBeDisabled();
  await expect(page.getByText("Email is off on this server.")).toBeVisible();

  // Browser notifications: off until clicked; the click asks (the context grants).
  const notify = page.getByRole("checkbox", { name: "Notify me in this browser", exact: true });
  await expect(notify).not.toBeChecked();
  await expect(page.getByTestId("notify-state")).toHaveAttribute("data-state", "off");
  await notify.check();
  await expect(notify).toBeChecked();
  await expect(page.getByTestId("notify-state")).toHaveText("On");

  // Time zone and language are saved to the account.
  const saved = page.waitForResponse((r) => r.url().endsWith("/api/settings") && r.request().method() === "PATCH");
  await page.getByLabel("Time zone").selectOption("Asia/Shanghai");
  expect((await (await saved).json()).timeZone).toBe("Asia/Shanghai");
  const savedLang = page.waitForResponse((r) => r.url().endsWith("/api/settings") && r.request().method() === "PATCH");
  await page.getByLabel("Language", { exact: true }).selectOption({ label: "中文" });
  expect((await (await savedLang).json()).language).toBe("zh");
  await expect(page.getByRole("heading", { name: "你不在时" })).toBeVisible();

  // A second device (no stored choice, an English browser) starts in the account's language.
  const other = await browser.newContext({ locale: "en-US" });
  const second = await other.newPage();
  await second.goto("/sign-in");
  await second.getByLabel("Email").fill(email);
  await second.getByLabel("Password").fill(PASSWORD);
  await second.getByRole("button", { name: "Sign in" }).click();
  await expect(second.getByRole("button", { name: "退出登录", exact: true })).toBeVisible();
  await second.goto("/settings");
  await expect(second.getByRole("heading", { name: "你不在时" })).toBeVisible();
  await expect(second.getByLabel("时区")).toHaveValue("Asia/Shanghai");
  await other.close();

  await page.getByLabel("语言", { exact: true }).selectOption({ label: "English" });
  await expect(page.getByRole("heading", { name: "When you are away" })).toBeVisible();

  // Two tabs of the account, both in the background: a notice becomes ONE system notification.
  const conversationId = await newChat(page);
  const tab2 = await context.newPage();
  await recordNotifications(tab2);
  await tab2.goto(`/c/${conversationId}`);
  await expect(tab2.getByLabel("Message")).toBeVisible();
  await hide(page);
  await hide(tab2);
  const task = await createTask(page, conversationId, "Quiet research", { steps: 1, stepMs: 500 });

  for (const p of [page, tab2]) await expect(p.locator('[data-kind="notice"]')).toBeVisible({ timeout: 30_000 });
  const noticeText = `"${task.title}" finished; the report is ready.`;
  await expect
    .poll(async () => [...(await shown(page)), ...(await shown(tab2))])
    .toEqual([{ title: "Quiet research", body: noticeText }]);

  // A click focuses Herald and opens the conversation at the notice.
  const holder = (await shown(page)).length === 1 ? page : tab2;
  await holder.evaluate(() => window.__shown[0].instance.onclick?.(new Event("click")));
  await expect(holder).toHaveURL(new RegExp(`/c/${conversationId}#notice-[0-9a-f-]{36}$`));
  const anchor = decodeURIComponent(new URL(holder.url()).hash.slice(1));
  await expect(holder.locator(`[data-kind="notice"][id="${anchor}"]`)).toBeVisible();
  await context.close();

  // An email's unsubscribe page opens without a session; a link that is not ours changes nothing.
  const anon = await browser.newContext();
  const visitor = await anon.newPage();
  await visitor.goto("/unsubscribe?token=bm9ib2R5.forged");
  await expect(visitor.getByRole("heading", { name: "Stop notice emails" })).toBeVisible();
  await expect(visitor.getByText(/^This link is not valid/)).toHaveAttribute("role", "alert");
  await expect(visitor.getByRole("button", { name: "Stop the emails" })).toHaveCount(0);
  await anon.close();
});
