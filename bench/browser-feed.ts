// Event → browser latency: a fact committed by a server-side writer until its
// SSE frame is handled by EventSource in real Chromium, through `next start`.
// Needs a production build (`npx next build`); started by bench/run.ts.
import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import path from "node:path";
import { chromium } from "@playwright/test";

export async function browserFeedLatency(databaseUrl: string, n = 100): Promise<number[] | null> {
  const root = path.resolve(import.meta.dirname, "..");
  const browserPath = process.env.PLAYWRIGHT_CHROMIUM_EXECUTABLE_PATH ?? "/usr/bin/chromium";
  if (!existsSync(path.join(root, ".next", "BUILD_ID")) || !existsSync(browserPath)) return null;
  const port = 3197;
  const origin = `http://localhost:${port}`;
  const web = spawn(process.execPath, [path.join(root, "node_modules/next/dist/bin/next"), "start", "-p", String(port)], {
    cwd: root,
    env: { ...process.env, DATABASE_URL: databaseUrl, BETTER_AUTH_URL: origin, BETTER_AUTH_SECRET: "bench-secret-bench-secret-bench-secret", HERALD_AUTH_RATE_LIMIT: "off" },
    stdio: "ignore",
  });
  const browser = await chromium.launch({ executablePath: browserPath, args: ["--no-sandbox", "--disable-gpu", "--disable-background-networking"] });
  try {
    for (let i = 0; i < 200; i++) {
      if (await fetch(`${origin}/api/health`).then((r) => r.ok, () => false)) break;
      await new Promise((r) => setTimeout(r, 250));
    }
    const context = await browser.newContext({ baseURL: origin });
    const page = await context.newPage();
    const email = `bench-${Date.now()}@example.test`;
    const res = await page.request.post("/api/auth/sign-up/email", {
      data: { name: "Bench", email, password: "correct horse battery" },
      headers: { origin },
    });
    const { user } = (await res.json()) as { user: { id: string } };
    await page.goto("/api/health");
    await page.evaluate(() => {
      const w = window as unknown as { got: Record<string, number>; es: EventSource };
      w.got = {};
      w.es = new EventSource("/api/events");
      w.es.addEventListener("task.updated", (e) => {
        const tag = JSON.parse((e as MessageEvent).data).task.bench;
        w.got[tag] = Date.now();
      });
    });
    await page.waitForFunction(() => (window as unknown as { es: EventSource }).es.readyState === 1);
    const { getDb } = await import("../lib/db/client");
    const { emitEvent } = await import("../lib/events/emit");
    const sent: Record<string, number> = {};
    for (let i = 0; i < n; i++) {
      const tag = `b${i}`;
      sent[tag] = Date.now();
      await getDb().$transaction((tx) => emitEvent(tx, user.id, { type: "task.updated", data: { task: { bench: tag } as never } }));
      await new Promise((r) => setTimeout(r, 20));
    }
    await page.waitForFunction((k) => Object.keys((window as unknown as { got: object }).got).length >= k, n, { timeout: 30_000 });
    const got = await page.evaluate(() => (window as unknown as { got: Record<string, number> }).got);
    return Object.keys(sent).map((k) => got[k] - sent[k]);
  } finally {
    await browser.close();
    web.kill("SIGTERM");
  }
}
