import { expect, test, type Page } from "@playwright/test";
import { readFileSync } from "node:fs";
import path from "node:path";
import { newChat, newEmail, PASSWORD, send, SHOTS, signedInControl, signUp, signUpViaUi } from "./helpers";

// Accounts: password policy and toggle, reset pages, back to the page
// that asked for sign-in, sign-out in every tab (drafts cleared; an ended session keeps them for the same account only), change
// password, data export and account deletion. The e2e server has no SMTP_URL.

async function signIn(page: Page, email: string, password = PASSWORD) {
  await page.getByLabel("Email").fill(email);
  await page.getByLabel("Password", { exact: true }).fill(password);
  await page.getByRole("button", { name: "Sign in" }).click();
}

test("sign-up refuses a common password in a sentence; Show password reveals it", async ({ page }) => {
  await page.goto("/sign-up");
  await page.getByLabel("Name").fill("Common");
  await page.getByLabel("Email").fill(newEmail("common"));
  const password = page.getByLabel("Password", { exact: true });
  await password.fill("12345678");
  await expect(password).toHaveAttribute("type", "password");
  const toggle = page.getByRole("button", { name: "Show password" });
  await expect(toggle).toHaveAttribute("aria-pressed", "false");
  await toggle.click();
  await expect(toggle).toHaveAttribute("aria-pressed", "true");
  await expect(password).toHaveAttribute("type", "text");
  await expect(password).toHaveValue("12345678");
  await page.getByRole("button", { name: "Sign up" }).click();
  // Next's route announcer is an (empty) alert too.
  await expect(page.getByRole("alert").filter({ hasText: "one of the most common passwords" })).toBeVisible();
  await expect(password).toHaveAttribute("aria-invalid", "true");
  await expect(page).toHaveURL(/\/sign-up$/);
});

test("a link to a chat leads back to that chat after signing in", async ({ page }) => {
  const email = await signUpViaUi(page, "Linker");
  const id = await newChat(page);
  await send(page, "hello from a link");
  await expect(page.locator('[data-kind="assistant"]')).toHaveCount(1, { timeout: 30_000 });
  await page.getByRole("button", { name: "Sign out" }).click();
  await expect(page).toHaveURL(/\/sign-in/);

  await page.goto(`/c/${id}`);
  await expect(page).toHaveURL(new RegExp(`/sign-in\\?next=${encodeURIComponent(`/c/${id}`)}$`));
  await signIn(page, email);
  await page.waitForURL(new RegExp(`/c/${id}$`));
  await expect(page.locator('[data-kind="user"]').getByText("hello from a link")).toBeVisible();

  // A foreign origin in next is ignored. The URL, not one navigation's load: sign-out's navigation can be superseded
  // by another to the same page (waitForURL then fails with ERR_ABORTED).
  await page.getByRole("button", { name: "Sign out" }).click();
  await expect(page).toHaveURL(/\/sign-in/);
  await page.goto("/sign-in?next=//example.com/");
  await signIn(page, email);
  await expect(signedInControl(page)).toBeVisible();
  expect(new URL(page.url()).origin).toBe(new URL(test.info().project.use.baseURL!).origin);
});

test("signing out in one tab signs out the others at once; no unsent draft outlives the sign-out", async ({
  page,
  context,
}) => {
  const email = await signUpViaUi(page, "Tabs");
  const id = await newChat(page);
  const other = await context.newPage();
  await other.goto(`/c/${id}`);
  await other.getByLabel("Message").fill("a draft on a shared browser");
  await expect
    .poll(() => other.evaluate(() => Object.keys(localStorage).filter((k) => k.startsWith("herald.draft:")).length))
    .toBe(1);

  await page.getByRole("button", { name: "Sign out" }).click();
  // The tab that signed out lands on the plain sign-in page; only the other one follows it.
  // Not waitForURL: a sign-out navigation can be superseded by another to the same page (ERR_ABORTED).
  await expect(page).toHaveURL(/\/sign-in$/);
  await expect(other).toHaveURL(/\/sign-in\?next=.*signedOut=1$/, { timeout: 5_000 });
  await expect(other.getByText("You were signed out in another tab.")).toBeVisible();
  // Signing out is leaving this browser: the draft went with it, in every tab.
  expect(await other.evaluate(() => Object.keys(localStorage).filter((k) => k.startsWith("herald.draft:")))).toEqual(
    [],
  );
  await signIn(other, email);
  await other.waitForURL(new RegExp(`/c/${id}$`));
  await expect(other.getByLabel("Message")).toHaveValue("");
});

test("a session that ended without a sign-out keeps the draft for its own account only", async ({ page, context }) => {
  const alice = await signUpViaUi(page, "Drafter");
  await page.getByLabel("Message").fill("alice's unsent words");
  await expect
    .poll(() => page.evaluate(() => Object.keys(localStorage).filter((k) => k.startsWith("herald.draft:")).length))
    .toBe(1);

  // The session ends (expired, or revoked from another device): nobody signed out here. The old tab notices on its
  // own and moves to sign-in, which would race a navigation of ours, so each next step takes a fresh tab of the same
  // browser (the drafts live in its localStorage).
  await context.clearCookies();
  await page.close();
  const stranger = await context.newPage();
  await signUpViaUi(stranger, "Stranger");
  await expect(stranger.getByLabel("Message")).toHaveValue("");
  await stranger.getByLabel("Message").fill("x");
  await stranger.getByLabel("Message").fill("");

  await context.clearCookies();
  await stranger.close();
  const back = await context.newPage();
  await back.goto("/sign-in");
  await signIn(back, alice);
  await expect(back.getByLabel("Message")).toHaveValue("alice's unsent words");
  await expect(back.getByTestId("toast")).toContainText("Your unsent message was restored.");
});

test("forgot password: the pages say what they can do", async ({ page }) => {
  await page.goto("/sign-in");
  // No SMTP_URL on this server: sign-in offers no reset by email, and says who can help instead.
  await expect(page.getByRole("link", { name: "Forgot password?" })).toHaveCount(0);
  await expect(page.getByTestId("reset-by-operator")).toBeVisible();
  // An old link to the page itself still explains rather than pretends.
  await page.goto("/forgot-password");
  await expect(page.getByRole("heading", { name: "Reset your password" })).toBeVisible();
  // No SMTP_URL on this server: no form that would pretend to send.
  await expect(page.getByText("Email is off on this server")).toBeVisible();
  await expect(page.getByRole("button", { name: "Send reset link" })).toHaveCount(0);
  await page.screenshot({ path: path.join(SHOTS, "forgot-password-1280.png") });

  await page.goto("/reset-password?token=made-up-token");
  await page.getByLabel("New password").fill("a brand new lantern 42");
  await page.getByRole("button", { name: "Set new password" }).click();
  await expect(page.getByText("This reset link is invalid")).toBeVisible();
  await expect(page.getByRole("link", { name: "Ask for a new link" })).toBeVisible();
});

test("settings: change password, download my data, delete the account", async ({ page }) => {
  const email = await signUp(page, "Owner");
  await newChat(page);
  await send(page, "remember this line");
  await expect(page.locator('[data-kind="assistant"]')).toHaveCount(1, { timeout: 30_000 });
  await page.goto("/settings");

  const current = page.getByLabel("Current password");
  const fresh = page.getByLabel("New password");
  await current.fill(PASSWORD);
  await fresh.fill("password1");
  await page.getByRole("button", { name: "Change password" }).click();
  await expect(page.getByRole("status").filter({ hasText: "one of the most common passwords" })).toBeVisible();
  await current.fill("not my password at all");
  await fresh.fill("a brand new lantern 42");
  await page.getByRole("button", { name: "Change password" }).click();
  await expect(page.getByRole("status").filter({ hasText: "That is not your current password." })).toBeVisible();
  await current.fill(PASSWORD);
  await fresh.fill("a brand new lantern 42");
  await page.getByRole("button", { name: "Change password" }).click();
  await expect(page.getByRole("status").filter({ hasText: "Password changed." })).toBeVisible();

  await page.getByRole("heading", { name: "Your data" }).scrollIntoViewIfNeeded();
  await page.screenshot({ path: path.join(SHOTS, "settings-account-1280.png"), fullPage: true });
  const [download] = await Promise.all([
    page.waitForEvent("download"),
    page.getByRole("link", { name: "Download my data" }).click(),
  ]);
  const data = JSON.parse(readFileSync((await download.path())!, "utf8")) as {
    account: { email: string };
    conversations: { messages: { content: string }[] }[];
  };
  expect(data.account.email).toBe(email);
  expect(data.conversations.flatMap((c) => c.messages.map((m) => m.content))).toContain("remember this line");

  await page.getByRole("button", { name: "Delete account…" }).click();
  const confirm = page.getByLabel("Your password");
  await expect(confirm).toBeFocused();
  await confirm.fill(PASSWORD);
  await page.getByRole("button", { name: "Delete my account forever" }).click();
  await expect(page.getByText("That is not your current password.")).toBeVisible();
  await confirm.fill("a brand new lantern 42");
  await page.getByRole("button", { name: "Delete my account forever" }).click();
  // The URL, not one navigation's load: the signed-out page can be reached by a second navigation that supersedes
  // the first (waitForURL then fails with ERR_ABORTED).
  await expect(page).toHaveURL(/\/sign-in/);
  await signIn(page, email, "a brand new lantern 42");
  await expect(page.getByRole("alert").filter({ hasText: "don't match an account" })).toBeVisible();
  await expect(page).toHaveURL(/\/sign-in/);
});

test.describe("phone", () => {
  test.use({ viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true });

  test("390×844: the title keeps its room, sign-out is a separate, explained item; installable", async ({ page }) => {
    await signUp(page, "Pocket");
    await newChat(page);
    await send(page, "A rather long first message so the conversation title has something to show");
    const title = page.getByRole("heading", { level: 1 });
    await expect(title).toBeVisible();
    expect((await title.boundingBox())!.width).toBeGreaterThanOrEqual(200);

    await page.getByRole("button", { name: "Account", exact: true }).click();
    const menu = page.getByRole("dialog", { name: "Account" });
    const signOut = menu.getByRole("button", { name: "Sign out" });
    await expect(signOut).toBeVisible();
    await expect(signOut).toHaveAccessibleDescription("Signs this browser out. Your tasks keep running.");
    // Set apart from Settings: not the next row a thumb slides onto.
    const settings = menu.getByRole("link", { name: "Settings" });
    expect(
      (await signOut.boundingBox())!.y - ((await settings.boundingBox())!.y + (await settings.boundingBox())!.height),
    ).toBeGreaterThanOrEqual(16);
    await page.screenshot({ path: path.join(SHOTS, "account-menu-390.png") });
    await page.emulateMedia({ colorScheme: "dark" });
    await page.screenshot({ path: path.join(SHOTS, "account-menu-390-dark.png") });
    await page.emulateMedia({ colorScheme: "light" });

    // Installable: a manifest with 192/512 icons, a touch icon.
    await expect(page.locator('link[rel="manifest"]')).toHaveCount(1);
    await expect(page.locator('link[rel="apple-touch-icon"]')).toHaveCount(1);
    const res = await page.request.get("/manifest.webmanifest");
    expect(res.status()).toBe(200);
    const manifest = (await res.json()) as {
      name: string;
      display: string;
      start_url: string;
      icons: { src: string; sizes: string }[];
    };
    expect(manifest).toMatchObject({ name: "Herald", display: "standalone", start_url: "/" });
    for (const size of ["192x192", "512x512"]) expect(manifest.icons.some((i) => i.sizes === size)).toBe(true);
    for (const icon of manifest.icons) expect((await page.request.get(icon.src)).status(), icon.src).toBe(200);
    expect((await page.request.get("/apple-touch-icon.png")).status()).toBe(200);
  });
});
