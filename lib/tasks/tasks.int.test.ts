import { afterAll, describe, expect, it } from "vitest";
import { randomUUID } from "node:crypto";
import { getDb } from "@/lib/db/client";
import * as tasksRoute from "@/app/api/tasks/route";
import * as taskRoute from "@/app/api/tasks/[id]/route";
import * as cancelRoute from "@/app/api/tasks/[id]/cancel/route";
import * as updateRoute from "@/app/api/tasks/[id]/update/route";
import * as conversationRoute from "@/app/api/conversations/[id]/route";
import {
  call,
  createConversationFor,
  signUp,
  startWorkerProcess,
  stopWorkers,
  waitFor,
  type TestUser,
  type WorkerProc,
} from "@/tests/helpers";

const started: WorkerProc[] = [];
const worker = (env: Record<string, string> = {}) => {
  const w = startWorkerProcess({ HERALD_TASK_LEASE_MS: "2000", ...env });
  started.push(w);
  return w;
};
afterAll(() => stopWorkers(...started));

async function start(
  user: TestUser,
  conversationId: string,
  simulate: { steps: number; stepMs: number },
  title = "EU battery supply chain",
) {
  const r = await call(tasksRoute.POST, {
    user,
    body: { conversationId, title, prompt: `research ${title}`, clientRequestId: randomUUID(), options: { simulate } },
  });
  expect(r.status).toBe(202);
  return r.json.task.id as string;
}

const taskRow = (id: string) => getDb().task.findUniqueOrThrow({ where: { id } });
const kinds = async (conversationId: string) =>
  (await getDb().message.findMany({ where: { conversationId, hidden: false }, orderBy: { seq: "asc" } })).map(
    (m) => m.kind,
  );

describe("starting a task", () => {
  it("the same clientRequestId sent six times at once makes one task, and every answer names it", async () => {
    const u = await signUp("Replay");
    const conv = await createConversationFor(u);
    const body = {
      conversationId: conv,
      title: "Duplicate",
      prompt: "research duplicates",
      clientRequestId: randomUUID(),
    };
    // Five of the inserts lose on the unique key and answer with the winner's task (lib/tasks/start-task.ts).
    const answers = await Promise.all(Array.from({ length: 6 }, () => call(tasksRoute.POST, { user: u, body })));
    expect(answers.map((r) => r.status)).toEqual(Array(6).fill(202));
    const rows = await getDb().task.findMany({ where: { ownerId: u.id } });
    expect(rows).toHaveLength(1);
    expect(new Set(answers.map((r) => r.json.task.id))).toEqual(new Set([rows[0].id]));
    // One task, one announcement: the losers' transactions rolled back with their events.
    expect(await getDb().event.count({ where: { ownerId: u.id, taskId: rows[0].id } })).toBe(1);
  });
});

describe("durable research tasks with real workers", () => {
  it("runs plan + steps, publishes partial at half and final at the end, then a terminal fact", async () => {
    const u = await signUp("Research");
    const conv = await createConversationFor(u);
    const w = worker({ HERALD_RESEARCH_STEP_MS: "0" });
    const id = await start(u, conv, { steps: 4, stepMs: 0 });
    const done = await waitFor(
      async () => ((await taskRow(id)).status === "succeeded" ? taskRow(id) : null),
      30_000,
      "task to succeed",
    );
    const steps = await getDb().taskStep.findMany({ where: { taskId: id }, orderBy: { index: "asc" } });
    expect(steps.map((s) => s.index)).toEqual([0, 1, 2, 3, 4]);
    expect(steps.every((s) => s.modelRequests === 1)).toBe(true);
    expect(done.modelRequests).toBe(5);
    const pubs = await getDb().publication.findMany({ where: { taskId: id }, orderBy: { version: "asc" } });
    expect(pubs.map((p) => [p.version, p.partial])).toEqual([
      [1, true],
      [2, false],
    ]);
    expect(done.latestPublicationId).toBe(pubs[1].id);
    const k = (await kinds(conv)).filter((x) => x !== "notice" && x !== "assistant");
    // Each section: the host's search line (no network here: the search fails at once), the model's own line
    // (send_research_update, shown while it works), then the host's line for the finished section.
    const section = ["progress", "progress", "progress"];
    expect(k).toEqual(["progress", ...section, ...section, "body", ...section, ...section, "body", "terminal"]);
    const progress = await getDb().message.findMany({
      where: { taskId: id, kind: "progress" },
      orderBy: { seq: "asc" },
    });
    const sources = progress.map((m) => (m.meta as { source?: string } | null)?.source ?? "host");
    expect(sources).toEqual(["host", ...Array.from({ length: 4 }, () => ["host", "model", "host"]).flat()]);
    expect(progress[1].content).toMatch(/^Searching the web for “/);
    expect(progress[2].content).toMatch(/^Checking sources for /);
    // A model line is no publication, and it cost no extra request (sent with the section text).
    const detail = await call(taskRoute.GET, { user: u, params: { id } });
    expect(detail.json.task.publications).toHaveLength(2);
    expect(detail.json.task.progressHistory).toHaveLength(13);
    await stopWorkers(w);
  });

  it("a worker SIGKILLed mid-task: another resumes from the last checkpoint without repeating finished steps", async () => {
    const u = await signUp("Resume");
    const conv = await createConversationFor(u);
    const a = worker({ HERALD_OFFLINE_CHUNK_MS: "40" });
    const id = await start(u, conv, { steps: 4, stepMs: 300 });
    // Kill while step 3 is in flight: steps 0..2 are committed checkpoints.
    await waitFor(
      async () => (await getDb().taskStep.count({ where: { taskId: id } })) === 3,
      30_000,
      "three checkpoints",
    );
    a.child.kill("SIGKILL");
    await a.exited;
    const before = await getDb().taskStep.findMany({ where: { taskId: id }, orderBy: { index: "asc" } });
    const b = worker();
    const done = await waitFor(
      async () => ((await taskRow(id)).status === "succeeded" ? taskRow(id) : null),
      40_000,
      "rescue",
    );
    const after = await getDb().taskStep.findMany({ where: { taskId: id }, orderBy: { index: "asc" } });
    expect(after.map((s) => s.index)).toEqual([0, 1, 2, 3, 4]);
    // The committed checkpoints are the very same rows: nothing was re-run.
    expect(after.slice(0, 3).map((s) => [s.id, s.createdAt.getTime()])).toEqual(
      before.map((s) => [s.id, s.createdAt.getTime()]),
    );
    expect(after.reduce((n, s) => n + s.modelRequests, 0)).toBe(5);
    // At most the one request that was in flight when the worker died is repeated.
    expect(done.modelRequests).toBeGreaterThanOrEqual(5);
    expect(done.modelRequests).toBeLessThanOrEqual(6);
    expect(await getDb().publication.count({ where: { taskId: id } })).toBe(2);
    expect(await getDb().message.count({ where: { taskId: id, kind: "terminal" } })).toBe(1);
    await stopWorkers(b);
  });

  it("cancel fences the task: late step results are dropped, partials stay, repeats change nothing", async () => {
    const u = await signUp("Cancel");
    const conv = await createConversationFor(u);
    const w = worker();
    const id = await start(u, conv, { steps: 2, stepMs: 1500 });
    // After the partial body (halfway = step 1) and while step 2 sleeps.
    await waitFor(
      async () => (await getDb().publication.count({ where: { taskId: id } })) === 1,
      30_000,
      "partial body",
    );
    const first = await call(cancelRoute.POST, { user: u, params: { id } });
    expect(first.status).toBe(200);
    expect(first.json.task.cancelRequested).toBe(true);
    const fence = (await taskRow(id)).cancelRequestedAt!;
    const second = await call(cancelRoute.POST, { user: u, params: { id } });
    expect(second.status).toBe(200);
    expect((await taskRow(id)).cancelRequestedAt!.getTime()).toBe(fence.getTime());
    const done = await waitFor(
      async () => ((await taskRow(id)).status === "cancelled" ? taskRow(id) : null),
      20_000,
      "cancelled",
    );
    expect(done.cancelAttempts).toBe(1);
    const steps = await getDb().taskStep.findMany({ where: { taskId: id } });
    expect(steps.every((s) => s.createdAt.getTime() <= fence.getTime())).toBe(true);
    expect(steps.map((s) => s.index).sort()).toEqual([0, 1]);
    const pubs = await getDb().publication.findMany({ where: { taskId: id } });
    expect(pubs.map((p) => p.partial)).toEqual([true]);
    expect(await getDb().message.count({ where: { taskId: id, kind: "terminal" } })).toBe(1);
    const third = await call(cancelRoute.POST, { user: u, params: { id } });
    expect(third.json.task.status).toBe("cancelled");
    await stopWorkers(w);
  });

  it("update adds instructions the next step honours", async () => {
    const u = await signUp("Update");
    const conv = await createConversationFor(u);
    const w = worker();
    const id = await start(u, conv, { steps: 3, stepMs: 800 });
    await waitFor(async () => (await getDb().taskStep.count({ where: { taskId: id } })) >= 1, 30_000, "plan");
    const r = await call(updateRoute.POST, { user: u, params: { id }, body: { message: "also cover recycling" } });
    expect(r.status).toBe(200);
    const pending = await call(taskRoute.GET, { user: u, params: { id } });
    // Pending until a step takes it (the first section may already have run if the pacing was short).
    const seen = pending.json.task.instructions;
    expect(seen.accepted).toBe(true);
    expect([...seen.pending, ...seen.applied.map((a: { text: string }) => a.text)]).toContain("also cover recycling");
    await waitFor(async () => (await taskRow(id)).status === "succeeded", 30_000, "finish");
    const final = await getDb().publication.findFirstOrThrow({ where: { taskId: id, partial: false } });
    // It steers what the later sections say; it is never pasted into the report.
    expect(final.content).not.toContain("also cover recycling");
    const after = (await call(taskRoute.GET, { user: u, params: { id } })).json.task.instructions;
    expect(after.pending).toEqual([]);
    expect(after.applied).toHaveLength(1);
    expect(after.applied[0]).toMatchObject({ text: "also cover recycling" });
    expect(after.applied[0].step).toBeGreaterThanOrEqual(1);
    await stopWorkers(w);
  });

  it("deleting the conversation cancels its active tasks", async () => {
    const u = await signUp("DeleteConv");
    const conv = await createConversationFor(u);
    const w = worker();
    const id = await start(u, conv, { steps: 3, stepMs: 2000 });
    await waitFor(async () => (await taskRow(id)).status === "running", 20_000, "running");
    expect((await call(conversationRoute.DELETE, { user: u, method: "DELETE", params: { id: conv } })).status).toBe(
      204,
    );
    await waitFor(async () => (await taskRow(id)).status === "cancelled", 20_000, "cancelled after delete");
    await stopWorkers(w);
  });

  it("cancel answers 503 before writing anything when no worker is alive; foreign ids are 404", async () => {
    const u = await signUp("NoWorker");
    const other = await signUp("Stranger");
    const conv = await createConversationFor(u);
    await stopWorkers(...started);
    await getDb().workerHeartbeat.updateMany({ data: { stoppedAt: new Date() } });
    const id = await start(u, conv, { steps: 2, stepMs: 0 });
    const r = await call(cancelRoute.POST, { user: u, params: { id } });
    expect(r.status).toBe(503);
    expect(r.json.error.code).toBe("unavailable");
    expect((await taskRow(id)).cancelRequestedAt).toBeNull();
    for (const res of [
      await call(taskRoute.GET, { user: other, params: { id } }),
      await call(cancelRoute.POST, { user: other, params: { id } }),
      await call(updateRoute.POST, { user: other, params: { id }, body: { message: "x" } }),
    ]) {
      expect(res.status).toBe(404);
    }
    const list = await call(tasksRoute.GET, { user: other, path: "/api/tasks?scope=all" });
    expect(list.json.tasks).toEqual([]);
  });
});
