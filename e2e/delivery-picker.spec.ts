import { expect, test } from "@playwright/test";
import path from "node:path";
import { newChat, send, SHOTS, signUp } from "./helpers";

// The delivery picker: a time of day, the sentence under the picker
// (English and Chinese, in the reader's zone), short deadlines explained, and a
// deadline on a message that starts no task said in the conversation.

test.use({ timezoneId: "Asia/Shanghai" });

test("Tell me at a time of day, with a sentence saying what will happen", async ({ page }) => {
  await signUp(page, "Picker");
  await newChat(page);
  const picker = page.getByTestId("delivery-picker");
  await picker.getByLabel("Delivery").selectOption({ label: "Tell me at" });
  const minutes = picker.getByLabel("Due in (minutes)");
  await expect(minutes).toHaveValue("10");
  const explainer = page.getByTestId("delivery-explainer");
  await expect(explainer).toContainText(
    /Herald will tell you at .+ \(in (9|10) min \d+ s\) with whatever is ready then, finished or not\./,
  );
  await expect(explainer).toContainText("A deadline only applies if the message starts background research.");

  // A time of day 3 minutes ahead in the reader's zone (Asia/Shanghai), seconds included; shown with its day in front
  // when that is tomorrow there (a run in the three minutes before midnight).
  const target = await page.evaluate(() => {
    const now = new Date();
    const d = new Date(now.getTime() + 3 * 60_000);
    const p = (n: number) => String(n).padStart(2, "0");
    const tomorrow = d.getDate() !== now.getDate();
    return {
      value: `${p(d.getHours())}:${p(d.getMinutes())}:${p(d.getSeconds())}`,
      shown: d.toLocaleString("en", {
        ...(tomorrow ? { weekday: "short", month: "short", day: "numeric" } : {}),
        hour: "numeric",
        minute: "2-digit",
        second: "2-digit",
      }),
    };
  });
  await picker.getByLabel("At a time of day").check();
  await picker.getByLabel("At time").fill(target.value);
  await expect(minutes).toHaveValue(/^(2\.9\d|3)$/);
  await expect(explainer).toContainText(`at ${target.shown} (in 2 min`);

  await picker.getByLabel("Stop at the deadline").check();
  await expect(explainer).toContainText("The work stops at that time.");
  await page.getByTestId("delivery-picker").screenshot({ path: path.join(SHOTS, "picker-at-time-1280.png") });

  // Very short: explained, not silently accepted.
  await picker.getByLabel("Delivery").selectOption({ label: "Tell me by" });
  // One field at a time: back to minutes, the time-of-day field hides.
  await picker.getByLabel("In minutes").check();
  await expect(picker.getByLabel("At time")).toBeHidden();
  await minutes.fill("0.2");
  await expect(explainer).toContainText("(in 12 s)");
  await expect(explainer).toContainText("Research takes at least a minute or two");
  await picker.getByLabel("Report even if unfinished").check();
  await expect(explainer).toContainText("at the latest, finished or not");

  await page.getByLabel("Language", { exact: true }).selectOption({ label: "中文" });
  await expect(explainer).toContainText("Herald 做完就告诉你，最晚在");
  await expect(explainer).toContainText("研究至少需要一两分钟");
  await page.setViewportSize({ width: 390, height: 844 });
  await page.screenshot({ path: path.join(SHOTS, "picker-by-short-390-zh.png") });
  await page.emulateMedia({ colorScheme: "dark" });
  await page.screenshot({ path: path.join(SHOTS, "picker-by-short-390-zh-dark.png") });
});

test("a deadline on a message that starts no task is said in the conversation", async ({ page }) => {
  await signUp(page, "Plain");
  await newChat(page);
  const picker = page.getByTestId("delivery-picker");
  await picker.getByLabel("Delivery").selectOption({ label: "Tell me by" });
  await send(page, "Hello, how are you?");
  const reply = page.locator('[data-kind="assistant"]').last();
  await expect(reply).toContainText("No background task was started for this message, so the deadline you set", {
    timeout: 30_000,
  });
  await expect(reply).toContainText("does not apply");
});
