import { test, expect } from "@playwright/test";
import { spawn, type ChildProcess } from "node:child_process";
import { readFileSync } from "node:fs";
import path from "node:path";
import { ensureDatabase } from "../lib/db/ensure";
import { newChat, send, signUp } from "./helpers";

// A second web process of our own on the e2e database, so the test can kill and
// restart "the server" the page is connected to while the suite's server and
// worker keep running.
// Beside the suite's server (E2E_PORT, 3100 by default), whose address the other half of the test uses.
const SUITE_PORT = Number(process.env.E2E_PORT ?? 3100);
const SUITE_ORIGIN = `http://localhost:${SUITE_PORT}`;
const PORT = SUITE_PORT + 1;
const ORIGIN = `http://localhost:${PORT}`;

test.use({ baseURL: ORIGIN });

async function startWeb(env: NodeJS.ProcessEnv): Promise<ChildProcess> {
  const child = spawn(
    process.execPath,
    [path.resolve("node_modules/next/dist/bin/next"), "start", "-p", String(PORT)],
    { env, stdio: "ignore" },
  );
  await expect
    .poll(
      async () =>
        fetch(`${ORIGIN}/api/health`).then(
          (r) => r.status,
          () => 0,
        ),
      { timeout: 60_000 },
    )
    .toBe(200);
  return child;
}

test("the feed reconnects after the server restarts and replays what happened meanwhile", async ({ page }) => {
  const dataDir = process.env.E2E_DATA_DIR!;
  const db = await ensureDatabase({ pgDataDir: path.join(dataDir, "pg"), migrate: false });
  const env = {
    ...process.env,
    DATABASE_URL: db.url,
    BETTER_AUTH_URL: ORIGIN,
    BETTER_AUTH_SECRET: readFileSync(path.join(dataDir, "auth-secret"), "utf8").trim(),
    HERALD_AUTH_RATE_LIMIT: "off",
  };
  let web = await startWeb(env);
  try {
    await signUp(page, "Restart");
    const conversationId = await newChat(page);
    await send(page, "before the restart");
    await expect(page.locator('[data-kind="assistant"]')).toHaveCount(1);

    web.kill("SIGKILL");
    await new Promise<void>((r) => web.once("exit", () => r()));
    // The page says so instead of looking healthy.
    const banner = page.getByTestId("connection-banner");
    await expect(banner).toHaveAttribute("data-state", "reconnecting", { timeout: 15_000 });
    await expect(banner).toContainText("Reconnecting…");
    // While this page's server is down, the other web process accepts a turn and the worker answers it.
    const other = await page.request.post(`${SUITE_ORIGIN}/api/conversations/${conversationId}/messages`, {
      data: { content: "while you were away", clientMessageId: crypto.randomUUID() },
      headers: { origin: SUITE_ORIGIN },
    });
    expect(other.status()).toBe(202);
    web = await startWeb(env);

    // No reload: EventSource reconnects with Last-Event-ID and gets the missed events.
    await expect(page.locator('[data-kind="user"]').filter({ hasText: "while you were away" })).toHaveCount(1, {
      timeout: 30_000,
    });
    await expect(page.locator('[data-kind="assistant"]')).toHaveCount(2, { timeout: 30_000 });
    await expect(page.getByTestId("connection-banner")).toHaveCount(0, { timeout: 15_000 });
  } finally {
    web.kill("SIGTERM");
    await db.stop();
  }
});
