// Event commit → browser receipt, through the production server and real Chromium, three ways at once in one page:
//   - the feed: EventSource on /api/events (what Herald's tabs use);
//   - the sheet's polling: GET /api/tasks?scope=all&limit=100 every ACTIVE_POLL_MS (3 s, lib/client/tasks.ts), what
//     the task sheet does besides the feed;
//   - a 5 s poll loop: the same request every 5 s, a typical poll-based design.
// A server-side writer changes a task the way every step does (row update + task.updated event in one transaction),
// numbering each change in its title; a poller has received change i when a response shows i or later (a poll sees
// state, not each change). Both ends read the same machine clock (Date.now()). Changes are spaced at random so the
// pollers' phase is uniform. Needs a production build (`npx next build`) and Chromium; started by bench/run.ts or
// on its own: `npx tsx bench/browser-feed.ts [changes] [meanSpacingMs]`.
import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import path from "node:path";
import { chromium } from "@playwright/test";
import { sql } from "kysely";
import { runStandalone } from "./fresh";
import { summary, type Summary } from "./stats";

export const SHEET_POLL_MS = 3_000; // lib/client/tasks.ts ACTIVE_POLL_MS, not imported: the bench must not load browser code
export const LOOP_POLL_MS = 5_000;

export interface ReceiptFigure {
  changes: number;
  meanSpacingMs: number;
  /** Commit → handled, per receiver; `missed` = changes a receiver never showed (only possible if the run is cut short). */
  feed: Summary;
  sheetPoll3s: Summary;
  pollLoop5s: Summary;
  missed: { feed: number; sheetPoll3s: number; pollLoop5s: number };
  /** p50 and p99 of each poller over the feed's. */
  ratios: Record<string, string>;
}

type Receivers = "feed" | "sheet" | "loop";

export async function browserReceiptBench(
  databaseUrl: string,
  opts: { changes?: number; meanSpacingMs?: number } = {},
): Promise<ReceiptFigure | null> {
  const changes = opts.changes ?? 100;
  const meanSpacingMs = opts.meanSpacingMs ?? 800;
  const root = path.resolve(import.meta.dirname, "..");
  const browserPath = process.env.PLAYWRIGHT_CHROMIUM_EXECUTABLE_PATH ?? "/usr/bin/chromium";
  if (!existsSync(path.join(root, ".next", "BUILD_ID")) || !existsSync(browserPath)) return null;
  const port = 3197;
  const origin = `http://localhost:${port}`;
  const web = spawn(
    process.execPath,
    [path.join(root, "node_modules/next/dist/bin/next"), "start", "-p", String(port)],
    {
      cwd: root,
      env: {
        ...process.env,
        DATABASE_URL: databaseUrl,
        BETTER_AUTH_URL: origin,
        BETTER_AUTH_SECRET: "bench-secret-bench-secret-bench-secret",
        HERALD_AUTH_RATE_LIMIT: "off",
        HERALD_LOG_LEVEL: "warn",
      },
      stdio: "ignore",
    },
  );
  const browser = await chromium.launch({
    executablePath: browserPath,
    args: ["--no-sandbox", "--disable-gpu", "--disable-background-networking"],
  });
  try {
    let up = false;
    for (let i = 0; i < 240 && !up; i++) {
      up = await fetch(`${origin}/api/health`).then(
        (r) => r.ok,
        () => false,
      );
      if (!up) await new Promise((r) => setTimeout(r, 250));
    }
    if (!up) throw new Error("next start did not answer /api/health within 60 s");
    const context = await browser.newContext({ baseURL: origin });
    const page = await context.newPage();
    const email = `bench-${Date.now()}@example.test`;
    const res = await page.request.post("/api/auth/sign-up/email", {
      data: { name: "Bench", email, password: "correct horse battery" },
      headers: { origin },
    });
    const { user } = (await res.json()) as { user: { id: string } };
    const { getDb } = await import("../lib/db/client");
    const { emitTaskById } = await import("../lib/tasks/emit-task");
    const { transactionWithEvents } = await import("../lib/events/emit");
    const db = getDb();
    const conv = await db.conversation.create({ data: { ownerId: user.id, title: "receipt bench" } });
    // Active (so both pollers' lists carry it) and not due for a day: no worker touches it.
    const task = await db.task.create({
      data: {
        ownerId: user.id,
        conversationId: conv.id,
        title: "receipt -1",
        prompt: "bench",
        status: "running",
        nextRunAt: new Date(Date.now() + 86_400_000),
      },
    });

    await page.goto("/api/health");
    // tsx keeps function names with a helper (__name) that the page does not have.
    await page.evaluate("window.__name = (f) => f");
    await page.evaluate(
      ({ taskId, sheetMs, loopMs }) => {
        const w = window as unknown as { got: Record<string, Record<number, number>>; es: EventSource; stop: boolean };
        w.got = { feed: {}, sheet: {}, loop: {} };
        w.stop = false;
        const seen = (who: string, upto: number) => {
          const at = Date.now();
          for (let i = upto; i >= 0 && w.got[who][i] === undefined; i--) w.got[who][i] = at;
        };
        const num = (title: string) => Number(/^receipt (-?\d+)$/.exec(title)?.[1] ?? -1);
        w.es = new EventSource("/api/events");
        w.es.addEventListener("task.updated", (e) => {
          const t = JSON.parse((e as MessageEvent).data).task as { id: string; title: string };
          if (t.id === taskId) seen("feed", num(t.title));
        });
        const poll = async (who: string, every: number) => {
          while (!w.stop) {
            const started = Date.now();
            const r = await fetch("/api/tasks?scope=all&limit=100");
            const { tasks } = (await r.json()) as { tasks: { id: string; title: string }[] };
            const t = tasks.find((x) => x.id === taskId);
            if (t) seen(who, num(t.title));
            await new Promise((ok) => setTimeout(ok, Math.max(0, every - (Date.now() - started))));
          }
        };
        void poll("sheet", sheetMs);
        void poll("loop", loopMs);
      },
      { taskId: task.id, sheetMs: SHEET_POLL_MS, loopMs: LOOP_POLL_MS },
    );
    await page.waitForFunction(() => (window as unknown as { es: EventSource }).es.readyState === 1);

    const sent: number[] = [];
    for (let i = 0; i < changes; i++) {
      await new Promise((r) => setTimeout(r, Math.random() * 2 * meanSpacingMs));
      sent[i] = Date.now();
      await transactionWithEvents(async (tx) => {
        await tx
          .updateTable("task")
          .set({ title: `receipt ${i}`, updatedAt: sql<Date>`now()` })
          .where("id", "=", task.id)
          .execute();
        await emitTaskById(tx, task.id);
      });
    }
    const last = changes - 1;
    await page
      .waitForFunction(
        (k) => {
          const g = (window as unknown as { got: Record<string, Record<number, number>> }).got;
          return ["feed", "sheet", "loop"].every((who) => g[who][k] !== undefined);
        },
        last,
        { timeout: LOOP_POLL_MS * 3 + 10_000 },
      )
      .catch(() => {});
    const got = await page.evaluate(() => {
      const w = window as unknown as { got: Record<string, Record<number, number>>; stop: boolean; es: EventSource };
      w.stop = true;
      w.es.close();
      return w.got;
    });
    const lat = (who: Receivers) => sent.flatMap((t, i) => (got[who][i] !== undefined ? [got[who][i] - t] : []));
    const feed = lat("feed");
    const sheet = lat("sheet");
    const loop = lat("loop");
    const f = summary(feed);
    const s = summary(sheet);
    const l = summary(loop);
    const x = (a: number, b: number) => `${(a / b).toFixed(0)}×`;
    return {
      changes,
      meanSpacingMs,
      feed: f,
      sheetPoll3s: s,
      pollLoop5s: l,
      missed: { feed: changes - feed.length, sheetPoll3s: changes - sheet.length, pollLoop5s: changes - loop.length },
      ratios: {
        "sheet's 3 s polling vs feed (p50 / p99)": `${x(s.p50, f.p50)} / ${x(s.p99, f.p99)}`,
        "5 s poll loop vs feed (p50 / p99)": `${x(l.p50, f.p50)} / ${x(l.p99, f.p99)}`,
      },
    };
  } finally {
    await browser.close();
    web.kill("SIGTERM");
  }
}

export function formatReceipt(r: ReceiptFigure): string {
  const row = (name: string, s: Summary) =>
    `  ${name.padEnd(22)} p50 ${s.p50.toFixed(0).padStart(6)} ms   p99 ${s.p99.toFixed(0).padStart(6)} ms`;
  return [
    `\nevent commit → browser receipt (${r.changes} task changes, Chromium, next start)`,
    row("feed (EventSource)", r.feed),
    row("sheet's 3 s polling", r.sheetPoll3s),
    row("5 s poll loop", r.pollLoop5s),
    ...Object.entries(r.ratios).map(([k, v]) => `  ${k}: ${v}`),
  ].join("\n");
}

if (process.argv[1] && path.resolve(process.argv[1]) === path.resolve(import.meta.filename)) {
  const [changes = 20, meanSpacingMs = 800] = process.argv.slice(2, 4).map(Number);
  runStandalone({}, () => browserReceiptBench(process.env.DATABASE_URL!, { changes, meanSpacingMs }));
}
