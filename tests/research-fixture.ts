// What the research integration tests share: a SearXNG-shaped search server with pages on loopback for the whole
// file, worker processes pointed at it (stopped when the file ends), and a way to start a two-section research task.
import { afterAll, beforeAll, expect } from "vitest";
import { randomUUID } from "node:crypto";
import * as tasksRoute from "@/app/api/tasks/route";
import { getDb } from "@/lib/db/client";
import { call, startWorkerProcess, stopWorkers, waitFor, type TestUser, type WorkerProc } from "./helpers";
import { peerEnv, startResearchPeer, type ResearchPeer } from "./research-peer";

export function researchFixture() {
  const state: { peer: ResearchPeer | null } = { peer: null };
  const started: WorkerProc[] = [];
  beforeAll(async () => {
    state.peer = await startResearchPeer({ delayMs: 150 });
  });
  afterAll(async () => {
    await stopWorkers(...started);
    await state.peer?.close();
  });

  const peer = () => state.peer!;
  const worker = (extra: Record<string, string> = {}) => {
    const w = startWorkerProcess({
      HERALD_TASK_LEASE_MS: "2000",
      HERALD_RESEARCH_MAX_SOURCES: "4",
      ...peerEnv(peer()),
      ...extra,
    });
    started.push(w);
    return w;
  };
  const start = async (user: TestUser, conversationId: string, prompt: string, title: string) => {
    const r = await call(tasksRoute.POST, {
      user,
      body: {
        conversationId,
        title,
        prompt,
        clientRequestId: randomUUID(),
        options: { simulate: { steps: 2, stepMs: 0 } },
      },
    });
    expect(r.status).toBe(202);
    return r.json.task.id as string;
  };
  const taskRow = (id: string) => getDb().task.findUniqueOrThrow({ where: { id } });
  const succeeded = (id: string, ms = 60_000) =>
    waitFor(async () => ((await taskRow(id)).status === "succeeded" ? taskRow(id) : null), ms, "task to succeed");
  return { peer, worker, start, taskRow, succeeded };
}
