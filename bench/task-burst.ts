// A burst of one-step research tasks on one worker: how long a task
// takes once started (startedAt → completedAt), end to end (createdAt → completedAt),
// throughput, and whether completion follows arrival (rank displacement).
import { randomUUID } from "node:crypto";
import path from "node:path";
import { sql, type NotNull } from "kysely";
import { runStandalone } from "./fresh";
import { procStat } from "../lib/util/process";

const pct = (xs: number[], p: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length ? s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))] : NaN;
};
const summary = (xs: number[]) => ({
  n: xs.length,
  p50: Math.round(pct(xs, 50)),
  p99: Math.round(pct(xs, 99)),
  max: Math.round(Math.max(...xs)),
});

export async function taskBurstBench(n = 200, workers = 1) {
  const { getDb } = await import("../lib/db/client");
  const { db } = await import("../lib/db/kysely");
  const { startTask } = await import("../lib/tasks/start-task");
  const { signUp, createConversationFor, startWorkerProcess, stopWorkers, waitFor } = await import("../tests/helpers");
  const user = await signUp("Burst");
  const conv = await createConversationFor(user);
  const before = await getDb().workerHeartbeat.count();
  const procs = Array.from({ length: workers }, () =>
    startWorkerProcess({ HERALD_OFFLINE_CHUNK_MS: "0", HERALD_LIMITS: "off" }),
  );
  try {
    await waitFor(async () => (await getDb().workerHeartbeat.count()) >= before + workers, 30_000, "workers");
    // What the workers spent starting (loading the code, the first beats), kept apart from what the tasks cost them.
    const workersCpu = () => procs.reduce((sum, p) => sum + (procStat(p.child.pid!)?.cpuMs ?? NaN), 0);
    const bootCpuMs = workersCpu();
    const ids: string[] = [];
    const t0 = performance.now();
    // Arriving faster than one worker finishes them (8 submissions in flight), like a user's script would.
    const start = async () => {
      const { task } = await startTask({
        ownerId: user.id,
        conversationId: conv,
        title: "burst",
        prompt: "benchmark",
        clientRequestId: randomUUID(),
        options: { simulate: { steps: 1, stepMs: 0 } },
      });
      ids.push(task.id);
    };
    let next = 0;
    await Promise.all(
      Array.from({ length: 8 }, async () => {
        while (next < n) {
          next += 1;
          await start();
        }
      }),
    );
    const arrivedMs = performance.now() - t0;
    await waitFor(
      async () => (await getDb().task.count({ where: { id: { in: ids }, status: "succeeded" } })) === n,
      600_000,
      "burst",
    );
    const secs = (performance.now() - t0) / 1000;
    // The workers' own CPU (they are the bottleneck): less noisy than throughput on a shared host.
    const workerCpuMs = workersCpu();
    const rows = await db()
      .selectFrom("task")
      .select([
        "id",
        "createdAt as created",
        sql<number>`(extract(epoch FROM ("completedAt" - "startedAt")) * 1000)::float8`.as("started"),
        sql<number>`(extract(epoch FROM ("completedAt" - "createdAt")) * 1000)::float8`.as("total"),
        "completedAt as done",
      ])
      .where("id", "in", ids)
      // Every one succeeded (waited for above), so each has its completedAt.
      .$narrowType<{ done: NotNull }>()
      .execute();
    const arrival = new Map(
      [...rows].sort((a, b) => a.created.getTime() - b.created.getTime()).map((r, i) => [r.id, i]),
    );
    const byDone = [...rows].sort(
      (a, b) => a.done.getTime() - b.done.getTime() || arrival.get(a.id)! - arrival.get(b.id)!,
    );
    const displacement = byDone.map((r, rank) => Math.abs(rank - arrival.get(r.id)!));
    if (process.env.BENCH_VERBOSE) {
      const slow = [...rows].sort((a, b) => b.started - a.started).slice(0, 8);
      const steps = await getDb().taskStep.findMany({
        where: { taskId: { in: slow.map((r) => r.id) } },
        select: { taskId: true, index: true, createdAt: true },
      });
      for (const r of slow) {
        const t = await getDb().task.findUniqueOrThrow({
          where: { id: r.id },
          select: { attempts: true, consecutiveErrors: true, error: true, startedAt: true },
        });
        const st = steps
          .filter((x) => x.taskId === r.id)
          .map((x) => `${x.index}@+${x.createdAt.getTime() - t.startedAt!.getTime()}ms`);
        console.log(
          `arrival ${arrival.get(r.id)} started→done ${Math.round(r.started)} ms attempts ${t.attempts} errors ${t.consecutiveErrors} ${t.error ?? ""} steps ${st.join(" ")}`,
        );
      }
    }
    return {
      n,
      workers,
      arrivalSeconds: Number((arrivedMs / 1000).toFixed(1)),
      tasksPerMinute: Math.round((n / secs) * 60),
      // Since each worker started (its boot included); NaN where /proc is missing.
      workerCpuMsPerTask: Number((workerCpuMs / n).toFixed(1)),
      // From the workers' first beat: what the tasks cost, without the boot.
      workerCpuMsPerTaskAfterStart: Number(((workerCpuMs - bootCpuMs) / n).toFixed(1)),
      workerBootCpuMs: Math.round(bootCpuMs),
      startedToCompletedMs: summary(rows.map((r) => r.started)),
      createdToCompletedMs: summary(rows.map((r) => r.total)),
      // 0 = completed exactly in arrival order.
      completionRankDisplacement: {
        mean: Number((displacement.reduce((a, b) => a + b, 0) / n).toFixed(1)),
        max: Math.max(...displacement),
      },
    };
  } finally {
    await stopWorkers(...procs);
  }
}

// `npx tsx bench/task-burst.ts [n] [workers]` on its own throwaway database.
if (process.argv[1] && path.resolve(process.argv[1]) === path.resolve(import.meta.filename)) {
  const [n = 200, workers = 1] = process.argv.slice(2).map(Number);
  runStandalone({ HERALD_LIMITS: "off", HERALD_ALLOW_SIMULATE: "1" }, () => taskBurstBench(n, workers));
}
