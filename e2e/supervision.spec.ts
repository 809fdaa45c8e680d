import { test, expect, type APIRequestContext } from "@playwright/test";
import { readFileSync } from "node:fs";
import path from "node:path";
import { createTask, newChat, signUp } from "./helpers";

// npm start (the webServer of this suite) supervises its children: these kills are real,
// and the suite's later specs run against the same, recovered server.
const dataDir = () => process.env.E2E_DATA_DIR!;

function childPid(name: string): number | undefined {
  const record = JSON.parse(readFileSync(path.join(dataDir(), "start.pids.json"), "utf8")) as {
    children: { pid: number; name: string }[];
  };
  return record.children.find((c) => c.name === name)?.pid;
}

const postmasterPid = () => Number(readFileSync(path.join(dataDir(), "pg", "postmaster.pid"), "utf8").split("\n")[0]);

async function taskStatus(request: APIRequestContext, id: string): Promise<string> {
  const res = await request.get(`/api/tasks/${id}`);
  return res.ok() ? ((await res.json()) as { task: { status: string } }).task.status : `http ${res.status()}`;
}

test("a SIGKILLed worker is restarted while the web server keeps serving; work started after it finishes", async ({
  page,
}) => {
  await signUp(page, "Sven");
  const conversationId = await newChat(page);
  const before = childPid("worker");
  expect(before).toBeGreaterThan(0);

  process.kill(-before!, "SIGKILL");
  // The web server never went away: the page's own API keeps answering.
  expect((await page.request.get("/api/tasks")).status()).toBe(200);
  await expect
    .poll(() => childPid("worker"), { timeout: 20_000, message: "a new worker pid is recorded" })
    .not.toBe(before);

  const task = await createTask(page, conversationId, "After the worker restart", { steps: 1, stepMs: 0 });
  await expect.poll(() => taskStatus(page.request, task.id), { timeout: 30_000 }).toBe("succeeded");
  await expect(page.locator('[data-kind="terminal"]')).toHaveCount(1, { timeout: 20_000 });
});

test("a SIGKILLed PostgreSQL is restarted on the same data directory; web, worker and the feed reconnect on their own", async ({
  page,
}) => {
  await signUp(page, "Petra");
  const conversationId = await newChat(page);
  const web = childPid("web");
  const worker = childPid("worker");
  const pm = postmasterPid();

  process.kill(pm, "SIGKILL");
  // A new postmaster first: the old one's backends can answer a query or two after it died, so a health check
  // right after the kill may still say 200.
  await expect
    .poll(
      () => {
        try {
          return postmasterPid();
        } catch {
          return pm; // between the old pid file and the new one
        }
      },
      { timeout: 60_000, message: "a new postmaster is running" },
    )
    .not.toBe(pm);
  await expect
    .poll(async () => (await page.request.get("/api/health").catch(() => null))?.status() ?? 0, {
      timeout: 60_000,
      message: "health is 200 again",
    })
    .toBe(200);
  // Neither child was restarted: they reconnected.
  expect(childPid("web")).toBe(web);
  expect(childPid("worker")).toBe(worker);

  // The open page's feed came back: a task started now shows its terminal line without a reload.
  const task = await createTask(page, conversationId, "After the database restart", { steps: 1, stepMs: 0 });
  await expect.poll(() => taskStatus(page.request, task.id), { timeout: 30_000 }).toBe("succeeded");
  await expect(page.locator('[data-kind="terminal"]')).toHaveCount(1, { timeout: 30_000 });
});
