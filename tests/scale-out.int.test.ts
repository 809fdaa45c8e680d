import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { spawn, type ChildProcess } from "node:child_process";
import { randomUUID } from "node:crypto";
import { getDb } from "@/lib/db/client";
import { isTerminalStatus } from "@/lib/contract/task";
import { takeSseFrames } from "./sse";
import { ROOT, signUp, startWorkerProcess, stopWorkers, waitFor, type TestUser, type WorkerProc } from "./helpers";

/**
 * Scale-out on one PostgreSQL (docs/operations.md#scaling-out): two web
 * processes and three workers, nothing shared but the database. One account's
 * feeds on different web processes see the same gap-free log; a cancel sent to
 * one web process stops work a worker holds; due notices fire once.
 */
interface Web {
  url: string;
  proc: ChildProcess;
}

async function startWeb(): Promise<Web> {
  const proc = spawn(process.execPath, ["--import", "tsx", "tests/web-process.ts"], { cwd: ROOT, env: process.env, stdio: ["ignore", "pipe", "pipe"] });
  let out = "";
  proc.stderr!.on("data", (d) => (out += d));
  const url = await new Promise<string>((resolve, reject) => {
    proc.stdout!.on("data", (d: Buffer) => {
      out += d;
      const m = /listening (http:\/\/\S+)/.exec(out);
      if (m) resolve(m[1]);
    });
    proc.once("exit", (code) => reject(new Error(`web process exited (${code}): ${out}`)));
  });
  return { url, proc };
}

/** Every event a feed delivers, collected in the background. */
function collectFeed(web: Web, user: TestUser) {
  const events: { id: number; type: string; data: unknown }[] = [];
  const abort = new AbortController();
  const done = (async () => {
    const res = await fetch(`${web.url}/api/events?after=0`, { headers: { cookie: user.cookie }, signal: abort.signal });
    const reader = res.body!.getReader();
    const dec = new TextDecoder();
    let buf = "";
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return;
      const { frames, rest } = takeSseFrames(buf + dec.decode(value, { stream: true }));
      buf = rest;
      for (const f of frames) if (f.id && f.event) events.push({ id: Number(f.id), type: f.event, data: JSON.parse(f.data ?? "null") });
    }
  })().catch(() => {});
  return { events, stop: async () => (abort.abort(), await done) };
}

async function post(web: Web, user: TestUser, path: string, body: unknown) {
  const r = await fetch(`${web.url}${path}`, { method: "POST", headers: { cookie: user.cookie, "content-type": "application/json" }, body: JSON.stringify(body) });
  return { status: r.status, json: (await r.json().catch(() => null)) as Record<string, unknown> };
}

const webs: Web[] = [];
const workers: WorkerProc[] = [];
beforeAll(async () => {
  webs.push(await startWeb(), await startWeb());
  for (let i = 0; i < 3; i++) workers.push(startWorkerProcess({ HERALD_TASK_LEASE_MS: "3000" }));
}, 60_000);
afterAll(async () => {
  await stopWorkers(...workers);
  for (const w of webs) w.proc.kill("SIGTERM");
});

describe("two web processes and three workers on one PostgreSQL", () => {
  it("feeds on both web processes see one gap-free log; a cancel via the other web process stops a running task; due notices fire once", { timeout: 150_000 }, async () => {
    const [a, b] = webs;
    const u = await signUp("ScaleOut");
    const feedA = collectFeed(a, u);
    const feedB = collectFeed(b, u);
    const conv = await post(a, u, "/api/conversations", {});
    expect(conv.status).toBe(201);
    const conversationId = (conv.json as { id: string }).id;

    // Tasks started through both web processes; two are timed ("tell me at" in 2 s), one is long and gets cancelled.
    const start = (web: Web, title: string, simulate: object, delivery?: object) =>
      post(web, u, "/api/tasks", { conversationId, title, prompt: title, clientRequestId: randomUUID(), options: { simulate }, ...(delivery ? { delivery } : {}) });
    const started = await Promise.all([
      start(a, "quick one", { steps: 1, stepMs: 0 }),
      start(b, "quick two", { steps: 2, stepMs: 0 }),
      start(a, "timed one", { steps: 2, stepMs: 0 }, { mode: "at", dueInSeconds: 2 }),
      start(b, "timed two", { steps: 6, stepMs: 1000 }, { mode: "at", dueInSeconds: 2, reportIfUnfinished: true }),
      start(a, "long one", { steps: 8, stepMs: 1500 }),
    ]);
    for (const s of started) expect(s.status).toBe(202);
    const ids = started.map((s) => (s.json.task as { id: string }).id);
    const longId = ids[4];

    // The long task is running on some worker; the cancel goes to the other web process.
    await waitFor(async () => (await getDb().taskStep.count({ where: { taskId: longId } })) >= 2, 60_000, "long task working");
    const cancel = await post(b, u, `/api/tasks/${longId}/cancel`, {});
    expect(cancel.status).toBe(200);

    const tasks = await waitFor(async () => {
      const rows = await getDb().task.findMany({ where: { id: { in: ids } } });
      return rows.every((t) => isTerminalStatus(t.status) && t.notificationStatus !== "pending" && (t.dueAt === null || t.dueEvaluatedAt !== null)) ? rows : null;
    }, 60_000, "every task settled");
    const byTitle = Object.fromEntries(tasks.map((t) => [t.title, t]));
    expect(byTitle["long one"].status).toBe("cancelled");
    expect(await getDb().taskStep.count({ where: { taskId: longId } })).toBeLessThan(9);
    for (const title of ["quick one", "quick two", "timed one", "timed two"]) expect(byTitle[title].status).toBe("succeeded");

    // Due notices: exactly one per timed task, though three workers ran the due loop.
    const dueNotices = await getDb().notice.findMany({ where: { taskId: { in: [byTitle["timed one"].id, byTitle["timed two"].id] }, key: "due" } });
    expect(dueNotices.map((n) => n.taskId).sort()).toEqual([byTitle["timed one"].id, byTitle["timed two"].id].sort());

    // Both feeds: the same events, ids 1..N without a gap, whichever process wrote them.
    const last = Number((await getDb().user.findUniqueOrThrow({ where: { id: u.id } })).eventSeq);
    await waitFor(
      async () => feedA.events.at(-1)?.id === last && feedB.events.at(-1)?.id === last,
      20_000,
      `both feeds caught up to ${last} (now ${feedA.events.at(-1)?.id} and ${feedB.events.at(-1)?.id}, ${feedA.events.length} and ${feedB.events.length} events)`,
    );
    await feedA.stop();
    await feedB.stop();
    const idsA = feedA.events.map((e) => e.id);
    expect(idsA).toEqual(Array.from({ length: last }, (_, i) => i + 1));
    expect(feedB.events.map((e) => e.id)).toEqual(idsA);
    expect(feedB.events.map((e) => e.type)).toEqual(feedA.events.map((e) => e.type));
  });
});
