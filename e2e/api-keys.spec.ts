import { test, expect } from "@playwright/test";
import { PASSWORD, signUp } from "./helpers";

test("Settings: create an API key with the password (shown once), use it on /api/ap, revoke it and it stops working", async ({
  page,
  playwright,
  baseURL,
}) => {
  await signUp(page, "Keira");
  await page.goto("/settings");
  const section = page.getByRole("region", { name: "API keys" });
  await expect(section).toContainText("Changing or resetting your password revokes every key.");
  await section.getByLabel("Key name").fill("my supervisor");
  const create = section.getByRole("button", { name: "Create key" });
  // A session alone mints no key: the password is asked for, and a wrong one is refused.
  await expect(create).toBeDisabled();
  await section.getByLabel("Password", { exact: true }).fill("not the password");
  await create.click();
  await expect(section.getByText("That is not your current password.")).toBeVisible();
  await expect(page.getByTestId("new-api-key")).toHaveCount(0);

  await section.getByLabel("Password", { exact: true }).fill(PASSWORD);
  await section.getByLabel("Expires").selectOption({ label: "In 30 days" });
  await create.click();
  const shown = page.getByTestId("new-api-key");
  await expect(shown).toHaveText(/^hrld_/);
  const key = (await shown.textContent())!.trim();
  await expect(section.getByLabel("Password", { exact: true })).toHaveValue("");
  const keys = page.getByRole("list", { name: "API keys" });
  await expect(keys.getByRole("listitem")).toHaveCount(1);
  await expect(keys).toContainText("my supervisor");
  await expect(keys).toContainText("expires");
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

test("Settings: changing the password revokes every API key, and the list says so", async ({
  page,
  playwright,
  baseURL,
}) => {
  await signUp(page, "Kendrick");
  await page.goto("/settings");
  const section = page.getByRole("region", { name: "API keys" });
  await section.getByLabel("Key name").fill("nightly");
  await section.getByLabel("Password", { exact: true }).fill(PASSWORD);
  await section.getByRole("button", { name: "Create key" }).click();
  const key = (await page.getByTestId("new-api-key").textContent())!.trim();
  const keys = page.getByRole("list", { name: "API keys" });
  await expect(keys).toContainText("never expires");

  await page.getByLabel("Current password").fill(PASSWORD);
  await page.getByLabel("New password").fill("a brand new lantern 42");
  await page.getByRole("button", { name: "Change password" }).click();
  await expect(page.getByText("Password changed.")).toBeVisible();
  await expect(keys.getByText("No API keys yet.")).toBeVisible();
  const program = await playwright.request.newContext({ baseURL });
  expect((await program.post("/api/ap/threads/search", { headers: { "x-api-key": key }, data: {} })).status()).toBe(
    401,
  );
  await program.dispose();
});
