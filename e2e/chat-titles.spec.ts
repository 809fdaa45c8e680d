import { test, expect } from "@playwright/test";
import { openNewConversation, send, sidebar, signUp } from "./helpers";

test("a chat opened with 'Hi' takes its research topic as its name", async ({ page }) => {
  await page.setViewportSize({ width: 1280, height: 800 });
  await signUp(page, "Namer");
  await openNewConversation(page);
  await send(page, "Hi");
  await expect(page.locator('[data-kind="assistant"]')).toHaveCount(1);
  await expect(page.getByRole("heading", { level: 1 })).toHaveText("Hi");
  await send(page, "research the EU battery supply chain");
  await expect(page.getByRole("heading", { level: 1 })).toHaveText("EU Battery Supply Chain", { timeout: 20_000 });
  await expect(sidebar(page).getByRole("link", { name: /EU Battery Supply Chain/ })).toBeVisible();
});

test("renaming a chat keeps its place in the list", async ({ page }) => {
  await page.setViewportSize({ width: 1280, height: 800 });
  await signUp(page, "Renamer");
  for (const text of ["Tell me about sodium batteries", "Tell me about tidal power"]) {
    await openNewConversation(page);
    await send(page, text);
    await expect(page.locator('[data-kind="assistant"]')).toHaveCount(1);
  }
  const links = sidebar(page).getByRole("link");
  await expect(links).toHaveText([/Tidal power/, /Sodium batteries/]);

  // Renaming the older chat is not activity: it stays second, under its new name, also after a reload.
  await page.getByRole("button", { name: "Options for Sodium batteries" }).click();
  await page.getByRole("button", { name: "Rename", exact: true }).click();
  await page.getByRole("textbox", { name: "Chat title" }).fill("Batteries");
  await page.getByRole("button", { name: "Save", exact: true }).click();
  await expect(links).toHaveText([/Tidal power/, /Batteries/]);
  await page.reload();
  await expect(links).toHaveText([/Tidal power/, /Batteries/]);
});
