import { expect, type Page } from "@playwright/test";
import { randomUUID } from "node:crypto";
import { fileURLToPath } from "node:url";

// Test artifacts by default; E2E_UPDATE_SCREENSHOTS=1 refreshes the reference copies kept in the repo.
export const SHOTS = process.env.E2E_UPDATE_SCREENSHOTS
  ? fileURLToPath(new URL("./__screenshots__/", import.meta.url))
  : fileURLToPath(new URL("../test-results/screenshots/", import.meta.url));

export const PASSWORD = "correct horse battery";

export function newEmail(tag: string): string {
  return `${tag}-${randomUUID().slice(0, 8)}@example.test`;
}

export async function signUpViaUi(page: Page, name: string, email = newEmail(name.toLowerCase())): Promise<string> {
  await page.goto("/sign-up");
  await page.getByLabel("Name").fill(name);
  await page.getByLabel("Email").fill(email);
  await page.getByLabel("Password").fill(PASSWORD);
  await page.getByRole("button", { name: "Sign up" }).click();
  await expect(signedInControl(page)).toBeVisible();
  return email;
}

/**
 * A new account without the sign-up form, for tests that are not about signing up: better-auth's endpoint through
 * the page's own request context, so the session cookie lands in the browser context; then the home page, signed in.
 * The body is the form's, this browser's time zone included (it becomes the account's clock).
 */
export async function signUp(page: Page, name: string, email = newEmail(name.toLowerCase())): Promise<string> {
  const timeZone = await page.evaluate(() => Intl.DateTimeFormat().resolvedOptions().timeZone);
  const res = await page.request.post("/api/auth/sign-up/email", {
    data: { name, email, password: PASSWORD, timeZone },
    headers: { Origin: await origin(page) },
  });
  expect(res.status(), await res.text()).toBe(200);
  await page.goto("/");
  await expect(signedInControl(page)).toBeVisible();
  return email;
}

/** signUp's counterpart for an existing account (another browser context of the same person). */
export async function signIn(page: Page, email: string): Promise<void> {
  const res = await page.request.post("/api/auth/sign-in/email", {
    data: { email, password: PASSWORD },
    headers: { Origin: await origin(page) },
  });
  expect(res.status(), await res.text()).toBe(200);
  await page.goto("/");
  await expect(signedInControl(page)).toBeVisible();
}

/** The origin the page's requests go to (a spec may point baseURL at a server of its own), as the browser sends it. */
async function origin(page: Page): Promise<string> {
  return new URL((await page.request.get("/api/health")).url()).origin;
}

export async function signInViaUi(page: Page, email: string): Promise<void> {
  await page.goto("/sign-in");
  await page.getByLabel("Email").fill(email);
  await page.getByLabel("Password").fill(PASSWORD);
  await page.getByRole("button", { name: "Sign in" }).click();
  await expect(signedInControl(page)).toBeVisible();
}

/** What shows a signed-in header: "Sign out" from 640 px up, the "Account" menu button on a phone. */
export function signedInControl(page: Page) {
  return page.getByRole("button", { name: "Sign out" }).or(page.getByRole("button", { name: "Account", exact: true }));
}

/** A conversation made through the API and opened: for specs about what happens in a chat, not about starting one. */
export async function openNewConversation(page: Page): Promise<string> {
  const res = await page.request.post("/api/conversations", { data: {} });
  expect(res.status(), await res.text()).toBe(201);
  const { id } = (await res.json()) as { id: string };
  await page.goto(`/c/${id}`);
  return id;
}

export async function newChat(page: Page): Promise<string> {
  await page.getByRole("button", { name: "New chat" }).click();
  await page.waitForURL(/\/c\/[^/]+$/);
  return page.url().split("/c/")[1];
}

export async function send(page: Page, text: string): Promise<void> {
  await page.getByLabel("Message").fill(text);
  await page.getByRole("button", { name: "Send" }).click();
}

// ---------- background tasks (tasks-ui / delivery-ui specs) ----------

export interface CreatedTask {
  id: string;
  title: string;
  status: string;
  delivery: { dueAt: string | null };
}

/** Starts a background task without the model (POST /api/tasks); simulate controls its pace. */
export async function createTask(
  page: Page,
  conversationId: string,
  title: string,
  simulate: { steps?: number; stepMs?: number } = {},
  delivery?: { mode: "at" | "by"; dueInSeconds: number },
): Promise<CreatedTask> {
  const res = await page.request.post("/api/tasks", {
    data: {
      conversationId,
      title,
      prompt: `Research ${title}`,
      clientRequestId: randomUUID(),
      options: { simulate },
      ...(delivery ? { delivery } : {}),
    },
  });
  expect(res.status(), await res.text()).toBe(202);
  return ((await res.json()) as { task: CreatedTask }).task;
}

export function tasksTrigger(page: Page) {
  return page.getByRole("button", { name: "Background tasks", exact: true });
}

/** Opens the sheet with the header button and returns the dialog. */
export async function openTasksSheet(page: Page, buttonName = "Background tasks") {
  await page.getByRole("button", { name: buttonName, exact: true }).click();
  const sheet = page.getByRole("dialog", { name: buttonName });
  await expect(sheet).toBeVisible();
  return sheet;
}

/** True when the request is a poll of the task list (not a task's detail or cancel). */
export function isTaskListRequest(url: string): boolean {
  return new URL(url).pathname === "/api/tasks";
}

// ---------- the sidebar and the home page ----------

export function sidebar(page: Page) {
  return page.getByRole("navigation", { name: "Conversations" });
}

/** Sends from the home page's composer; the chat is made then, and the page moves to it. */
export async function startFromHome(page: Page, text: string): Promise<string> {
  await page.goto("/");
  await page.getByLabel("Message").fill(text);
  await page.getByRole("button", { name: "Send" }).click();
  await page.waitForURL(/\/c\/[^/]+$/);
  await expect(page.locator('[data-kind="assistant"]').last()).toBeVisible();
  await expect(page.locator('[data-streaming="true"]')).toHaveCount(0);
  return page.url().split("/c/")[1];
}

/** Makes the page believe it is in a background tab (what React Query and the feed listen to). */
export async function setHidden(page: Page, hidden: boolean): Promise<void> {
  await page.evaluate((hide) => {
    Object.defineProperty(document, "visibilityState", {
      configurable: true,
      get: () => (hide ? "hidden" : "visible"),
    });
    Object.defineProperty(document, "hidden", { configurable: true, get: () => hide });
    document.dispatchEvent(new Event("visibilitychange"));
  }, hidden);
}
