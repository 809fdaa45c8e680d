import { expect, test, type Page } from "@playwright/test";
import { randomUUID } from "node:crypto";

// One local clock: an account signed up from a browser in Asia/Shanghai keeps
// that zone, and the chip under a message and Herald's reply show the same
// local time for the same promise, in the account's language.

test.use({ timezoneId: "Asia/Shanghai", locale: "zh-CN" });

const PASSWORD = "correct horse battery";

async function signUpViaForm(page: Page, name: string): Promise<void> {
  await page.goto("/sign-up");
  await page.getByLabel("姓名").fill(name);
  await page.getByLabel("邮箱").fill(`${name.toLowerCase()}-${randomUUID().slice(0, 8)}@example.test`);
  await page.getByLabel("密码", { exact: true }).fill(PASSWORD);
  await page.getByRole("button", { name: "注册", exact: true }).click();
  await expect(page.getByLabel("消息", { exact: true })).toBeVisible({ timeout: 20_000 });
}

/** "21:54:25" as a Shanghai clock shows `at`. */
function shanghaiClock(at: number): string {
  return new Intl.DateTimeFormat("en-GB", {
    timeZone: "Asia/Shanghai",
    hour: "2-digit",
    minute: "2-digit",
    second: "2-digit",
    hourCycle: "h23",
  }).format(at);
}

test("the chip and Herald's reply show the same Shanghai time", async ({ page }) => {
  await signUpViaForm(page, "Shanghai");
  const settings = await (await page.request.get("/api/settings")).json();
  expect(settings.timeZone).toBe("Asia/Shanghai");

  const picker = page.getByTestId("delivery-picker");
  await picker.getByLabel("告知时间").selectOption({ label: "到点告诉我" });
  await picker.getByLabel("期限（分钟）").fill("3");
  const sentAt = Date.now();
  await page.getByLabel("消息", { exact: true }).fill("帮我研究一下欧洲热泵的普及情况");
  await page.getByRole("button", { name: "发送", exact: true }).click();

  const chip = page.locator('[data-kind="user"] [data-delivery-mode="at"]').first();
  await expect(chip).toContainText(/\d{2}:\d{2}:\d{2}（\d 分钟后）/);
  const chipClock = /(\d{2}:\d{2}:\d{2})/.exec((await chip.textContent()) ?? "")![1];
  // Within a few seconds of three minutes from sending, on the Shanghai clock.
  const expected = [0, 1, 2, 3, 4, 5].map((s) => shanghaiClock(sentAt + 180_000 + s * 1000));
  expect(expected).toContain(chipClock);

  const reply = page.locator('[data-kind="assistant"]').filter({ hasText: "告诉你" }).first();
  await expect(reply).toContainText(`${chipClock}（`, { timeout: 30_000 });
  await expect(reply).not.toContainText("UTC");
});

test("Settings offers this device's zone when the account's differs", async ({ page }) => {
  await signUpViaForm(page, "Traveller");
  const res = await page.request.patch("/api/settings", {
    data: { timeZone: "Europe/Berlin" },
    headers: { Origin: new URL(page.url()).origin },
  });
  expect(res.status()).toBe(200);
  await page.goto("/settings");
  const use = page.getByRole("button", { name: "使用本设备的时区（Asia/Shanghai）" });
  await expect(use).toBeVisible();
  await use.click();
  await expect(use).toHaveCount(0);
  expect((await (await page.request.get("/api/settings")).json()).timeZone).toBe("Asia/Shanghai");
});

test("Tell me at takes one due time: minutes or a time of day, one field at a time", async ({ page }) => {
  await signUpViaForm(page, "Picker");
  const picker = page.getByTestId("delivery-picker");
  await picker.getByLabel("告知时间").selectOption({ label: "到点告诉我" });
  await expect(picker.getByLabel("期限（分钟）")).toBeVisible();
  await expect(picker.getByLabel("时间", { exact: true })).toHaveCount(0);
  await picker.getByLabel("按几点几分").check();
  await expect(picker.getByLabel("时间", { exact: true })).toBeVisible();
  await expect(picker.getByLabel("期限（分钟）")).toBeHidden();
  // It starts at the moment the minutes described (10 min from now, Shanghai clock).
  await expect(picker.getByLabel("时间", { exact: true })).toHaveValue(/^\d{2}:\d{2}$/);
  await page.setViewportSize({ width: 390, height: 844 });
  await page.screenshot({ path: "test-results/clock-composer-390-zh.png" });
  await page.setViewportSize({ width: 1280, height: 800 });
  await page.screenshot({ path: "test-results/clock-composer-1280-zh.png" });
});
