import { test, expect } from "@playwright/test";
import { signUpViaUi } from "./helpers";

test("Settings: create an API key (shown once), use it on /api/ap, revoke it and it stops working", async ({ page, playwright, baseURL }) => {
  await signUpViaUi(page, "Keira");
  await page.goto("/settings");
  await page.getByLabel("Key name").fill("my supervisor");
  await page.getByRole("button", { name: "Create key" }).click();
  const shown = page.getByTestId("new-api-key");
  await expect(shown).toHaveText(/^hrld_/);
  const key = (await shown.textContent())!.trim();
  const keys = page.getByRole("list", { name: "API keys" });
  await expect(keys.getByRole("listitem")).toHaveCount(1);
  await expect(keys).toContainText("my supervisor");
  await expect(keys).not.toContainText(key);

  // A program with the key, and no cookies.
  const program = await playwright.request.newContext({ baseURL });
  const search = () => program.post("/api/ap/threads/search", { headers: { "x-api-key": key }, data: {} });
  expect((await search()).status()).toBe(200);

  await keys.getByRole("button", { name: "Revoke key my supervisor" }).click();
  await expect(keys.getByText("No API keys yet.")).toBeVisible();
  expect((await search()).status()).toBe(401);
  // A reload never shows the key again.
  await page.reload();
  await expect(page.getByTestId("new-api-key")).toHaveCount(0);
  await program.dispose();
});
