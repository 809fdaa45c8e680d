import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from "vitest";
import { randomUUID } from "node:crypto";
import { getDb } from "@/lib/db/client";
import { db } from "@/lib/db/kysely";
import { literals } from "@/lib/db/sql-list";
import { TERMINAL_STATUSES } from "@/lib/contract/task";
import { startTask } from "@/lib/tasks/start-task";
import {
  createConversationFor,
  signUp,
  startWorkerProcess,
  stopWorkers,
  waitFor,
  type TestUser,
  type WorkerProc,
} from "@/tests/helpers";

// A started task finishes before the tasks that arrived after it take over the
// worker: claims go by arrival, so a task's next step does not queue
// behind the rest of a burst. Order only, from database timestamps; speed is in the bench.

const started: WorkerProc[] = [];
// Bursts beyond the per-account quotas; the worker's fair share (slots) stays as configured.
beforeAll(() => {
  vi.stubEnv("HERALD_LIMIT_ACTIVE_TASKS", "100");
  vi.stubEnv("HERALD_LIMIT_TASK_STARTS_PER_MINUTE", "100");
});
afterAll(async () => {
  vi.unstubAllEnvs();
  await stopWorkers(...started);
});

// Rows left by earlier files would compete for the worker here.
beforeEach(async () => {
  await db()
    .updateTable("task")
    .set({ status: "cancelled", leaseToken: null, leaseExpiresAt: null, nextRunAt: null })
    .where("status", "not in", literals(TERMINAL_STATUSES))
    .execute();
});

async function burst(user: TestUser, n: number, tag: string): Promise<string[]> {
  const conv = await createConversationFor(user);
  const ids: string[] = [];
  for (let i = 0; i < n; i++) {
    const { task } = await startTask({
      ownerId: user.id,
      conversationId: conv,
      title: `${tag} ${i}`,
      prompt: "burst",
      clientRequestId: randomUUID(),
      options: { simulate: { steps: 1, stepMs: 0 } },
    });
    ids.push(task.id);
  }
  return ids;
}

interface Times {
  id: string;
  createdAt: Date;
  startedAt: Date;
  completedAt: Date;
}

async function times(ids: string[]): Promise<Times[]> {
  const rows = await getDb().task.findMany({
    where: { id: { in: ids } },
    select: { id: true, createdAt: true, startedAt: true, completedAt: true, status: true },
  });
  const byId = new Map(rows.map((r) => [r.id, r]));
  return ids.map((id) => {
    const r = byId.get(id)!;
    expect(r.status).toBe("succeeded");
    return { id, createdAt: r.createdAt, startedAt: r.startedAt!, completedAt: r.completedAt! };
  });
}

const allDone = (ids: string[], timeoutMs: number, w: WorkerProc) =>
  waitFor(
    async () => (await getDb().task.count({ where: { id: { in: ids }, status: "succeeded" } })) === ids.length,
    timeoutMs,
    "burst done",
  ).catch((err) => {
    throw new Error(`${err}\nworker output:\n${w.output()}`);
  });

describe("a started task finishes", () => {
  it("a burst completes in arrival order, each task before the burst's later tasks start", async () => {
    const u = await signUp("Burst");
    const N = 40;
    const ids = await burst(u, N, "b");
    const w = startWorkerProcess({ HERALD_WORKER_CONCURRENCY: "4", HERALD_LIMIT_SLOTS_PER_LOOP: "4" });
    started.push(w);
    await allDone(ids, 120_000, w);
    const t = await times(ids);
    // Completion rank vs arrival rank: nobody moves by more than the worker's slots.
    const byCompletion = [...t].sort(
      (a, b) => a.completedAt.getTime() - b.completedAt.getTime() || ids.indexOf(a.id) - ids.indexOf(b.id),
    );
    const displacement = byCompletion.map((x, rank) => Math.abs(rank - ids.indexOf(x.id)));
    expect(Math.max(...displacement)).toBeLessThanOrEqual(4);
    // When a task completes, at most a few later arrivals have started: it did not wait
    // for the rest of the burst (by nextRunAt, the first task completed after all 40 started).
    const overtaken = t.map((x, i) => t.slice(i + 1).filter((y) => y.startedAt < x.completedAt).length);
    expect(Math.max(...overtaken)).toBeLessThanOrEqual(8);
    await stopWorkers(w);
  });

  it("arrival order stays within fairness: a later account's task is not kept behind another account's burst", async () => {
    const hog = await signUp("BurstHog");
    const other = await signUp("BurstOther");
    const hogIds = await burst(hog, 30, "hog");
    const [otherId] = await burst(other, 1, "other");
    // Three slots per account (the default), four per worker: the other account gets the fourth at once.
    const w = startWorkerProcess({ HERALD_WORKER_CONCURRENCY: "4" });
    started.push(w);
    await allDone([...hogIds, otherId], 120_000, w);
    const [o] = await times([otherId]);
    const hogTimes = await times(hogIds);
    const hogDoneBefore = hogTimes.filter((x) => x.completedAt < o.completedAt).length;
    // By arrival alone it would come last (31st); fair, it is among the first few.
    expect(hogDoneBefore).toBeLessThanOrEqual(6);
    await stopWorkers(w);
  });
});
