import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { randomUUID } from "node:crypto";
import { getDb } from "@/lib/db/client";
import * as tasksRoute from "@/app/api/tasks/route";
import { call, createConversationFor, signUp, startWorkerProcess, stopWorkers, waitFor, type TestUser, type WorkerProc } from "@/tests/helpers";
import { peerEnv, startResearchPeer, type ResearchPeer } from "@/tests/research-peer";

/**
 * A worker killed while a research section reads: what finished sections read
 * is never searched or read again (their sources committed with their steps);
 * the killed section's work is redone once. Slow suite: two worker boots and a
 * lease expiry (about 30 s).
 */

let peer: ResearchPeer;
const started: WorkerProc[] = [];
beforeAll(async () => {
  peer = await startResearchPeer({ delayMs: 150 });
});
afterAll(async () => {
  await stopWorkers(...started);
  await peer.close();
});

const worker = (extra: Record<string, string> = {}) => {
  const w = startWorkerProcess({ HERALD_TASK_LEASE_MS: "2000", HERALD_RESEARCH_MAX_SOURCES: "4", ...peerEnv(peer), ...extra });
  started.push(w);
  return w;
};

async function start(user: TestUser, conversationId: string, prompt: string, title: string) {
  const r = await call(tasksRoute.POST, {
    user,
    body: { conversationId, title, prompt, clientRequestId: randomUUID(), options: { simulate: { steps: 2, stepMs: 0 } } },
  });
  expect(r.status).toBe(202);
  return r.json.task.id as string;
}

const taskRow = (id: string) => getDb().task.findUniqueOrThrow({ where: { id } });
const succeeded = (id: string, ms = 60_000) => waitFor(async () => ((await taskRow(id)).status === "succeeded" ? taskRow(id) : null), ms, "task to succeed");

describe("research sources across a crash", () => {
  it("a worker SIGKILLed mid-section: the next resumes without searching or reading again what the finished section read", async () => {
    const u = await signUp("SourcesCrash");
    const conv = await createConversationFor(u);
    const before = new Map(peer.hits);
    // Slow text (40 ms a word) keeps section 2 in flight long enough to be killed in.
    const a = worker({ HERALD_OFFLINE_CHUNK_MS: "40" });
    const id = await start(u, conv, "the otters of Lake Zorb", "Zorb otters, resumed");
    await waitFor(async () => (await getDb().taskStep.count({ where: { taskId: id } })) === 2, 60_000, "plan and section 1 committed");
    await waitFor(async () => (peer.hits.get("/search") ?? 0) - (before.get("/search") ?? 0) >= 2, 20_000, "section 2 searching");
    a.child.kill("SIGKILL");
    await a.exited;
    expect(await getDb().taskStep.count({ where: { taskId: id } })).toBe(2);
    const firstSection = await getDb().taskSource.findMany({ where: { taskId: id }, orderBy: { n: "asc" } });
    expect(firstSection.map((s) => s.n)).toEqual([1, 2]);

    const b = worker();
    await succeeded(id);
    const sources = await getDb().taskSource.findMany({ where: { taskId: id }, orderBy: { n: "asc" } });
    expect(sources.map((s) => s.n)).toEqual([1, 2, 3, 4]);
    // The rows of the finished section are the same rows; its pages were read once, never again.
    expect(sources.slice(0, 2).map((s) => [s.id, s.url])).toEqual(firstSection.map((s) => [s.id, s.url]));
    for (const s of firstSection) expect((peer.hits.get(new URL(s.url).pathname) ?? 0) - (before.get(new URL(s.url).pathname) ?? 0), s.url).toBe(1);
    // The killed section's pages were read at most twice (once by the dead worker, once by its successor).
    for (const s of sources.slice(2)) expect((peer.hits.get(new URL(s.url).pathname) ?? 0) - (before.get(new URL(s.url).pathname) ?? 0)).toBeLessThanOrEqual(2);
    const body = (await getDb().publication.findFirstOrThrow({ where: { taskId: id, partial: false } })).content;
    expect(body.endsWith(`## Sources\n\n${sources.map((s) => `${s.n}. [${s.title}](${s.url})`).join("\n")}`)).toBe(true);
    await stopWorkers(b);
  });
});
