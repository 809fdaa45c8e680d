// Herald's own worker processes on the offline model:
//   - research tasks per minute with 1, 2 and 4 worker processes (how the cost grows),
//     with the statements each worker sent per finished task;
//   - idle cost: statements per minute per worker with nothing to do, counted in the
//     workers' pg clients and, as a cross-check, by pg_stat_database.xact_commit.
import { randomUUID } from "node:crypto";
import pg from "pg";
import { BenchWorker } from "./child";
import { benchAccount, withFreshDatabase } from "./fresh";

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
/** Pacing off and the offline model streaming without delay: only the work is timed. */
const ACCOUNTS = 4;
const STEPS = 4;
const RESEARCH_ENV = {
  HERALD_RESEARCH_STEPS: String(STEPS),
  HERALD_RESEARCH_STEP_MS: "0",
  HERALD_OFFLINE_CHUNK_MS: "0",
};

export interface ResearchRow {
  workers: number;
  tasks: number;
  completed: number;
  seconds: number;
  tasksPerMinute: number;
  /**
   * Research steps committed (plan + sections) per minute, divided by the steps of one task:
   * the rate in whole tasks even when the window closes with many tasks half done.
   */
  taskEquivalentsPerMinute: number;
  /** Statements all workers sent per finished task (steps, feed events, narration runs). */
  queriesPerTask: number;
}

async function researchOnce(serverUrl: string, workers: number, tasks: number, capMs: number): Promise<ResearchRow> {
  return withFreshDatabase(serverUrl, async (url) => {
    const { startTask } = await import("../lib/tasks/start-task");
    // Several accounts, as a deployment has: one account's feed events share one sequence lock.
    const accounts = await Promise.all(
      Array.from({ length: ACCOUNTS }, (_, i) => benchAccount(`research${workers}-${i}`)),
    );
    const procs = await Promise.all(
      Array.from({ length: workers }, () => BenchWorker.start("herald", 4, { env: RESEARCH_ENV })),
    );
    const pool = new pg.Pool({ connectionString: url, max: 1 });
    pool.on("error", () => {});
    try {
      await Promise.all(procs.map((p) => p.go()));
      const q0 = (await Promise.all(procs.map((p) => p.report()))).reduce((n, r) => n + r.queries, 0);
      const t0 = performance.now();
      for (let i = 0; i < tasks; i += 8) {
        await Promise.all(
          Array.from({ length: Math.min(8, tasks - i) }, (_, j) =>
            startTask({
              ownerId: accounts[(i + j) % ACCOUNTS].user.id,
              conversationId: accounts[(i + j) % ACCOUNTS].conv,
              title: `bench research ${i + j}`,
              prompt: "Compare three job queues on PostgreSQL",
              clientRequestId: randomUUID(),
            }),
          ),
        );
      }
      let completed = 0;
      while (performance.now() - t0 < capMs) {
        const { rows } = await pool.query(
          `SELECT count(*)::int AS n FROM "task" WHERE "ownerId" = ANY($1) AND status = 'succeeded'`,
          [accounts.map((a) => a.user.id)],
        );
        completed = rows[0].n;
        if (completed === tasks) break;
        if (
          process.env.BENCH_TRACE &&
          Math.floor((performance.now() - t0) / 3000) !== Math.floor((performance.now() - t0 - 60) / 3000)
        ) {
          const a = await pool.query(
            `SELECT wait_event_type AS t, wait_event AS e, state, left(regexp_replace(query, '\\s+', ' ', 'g'), 70) AS q, count(*)::int AS n FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid() GROUP BY 1,2,3,4 ORDER BY n DESC LIMIT 12`,
          );
          console.error(`--- ${completed} done`, a.rows);
        }
        await sleep(50);
      }
      const seconds = (performance.now() - t0) / 1000;
      const { rows: st } = await pool.query(`SELECT count(*)::int AS n FROM "task_step"`);
      const q1 = (await Promise.all(procs.map((p) => p.report()))).reduce((n, r) => n + r.queries, 0);
      return {
        workers,
        tasks,
        completed,
        seconds: Number(seconds.toFixed(2)),
        tasksPerMinute: Math.round((completed / seconds) * 60),
        taskEquivalentsPerMinute: Math.round((st[0].n / (STEPS + 1) / seconds) * 60),
        queriesPerTask: Math.round((q1 - q0) / Math.max(1, completed)),
      };
    } finally {
      await Promise.all(procs.map((p) => p.stop()));
      await pool.end();
    }
  });
}

export async function researchScaling(
  serverUrl: string,
  opts: { counts?: number[]; tasks?: number; capMs?: number } = {},
) {
  const rows: ResearchRow[] = [];
  for (const n of opts.counts ?? [1, 2, 4]) {
    rows.push(await researchOnce(serverUrl, n, opts.tasks ?? 24, opts.capMs ?? 30_000));
    if (process.env.BENCH_VERBOSE) console.log(rows.at(-1));
  }
  const one = rows[0];
  const ratios: Record<string, string> = {};
  for (const r of rows.slice(1)) {
    ratios[`research ${r.workers} workers vs 1: tasks/min`] = `${(r.tasksPerMinute / one.tasksPerMinute).toFixed(2)}×`;
    ratios[`research ${r.workers} workers vs 1: steps/min`] =
      `${(r.taskEquivalentsPerMinute / one.taskEquivalentsPerMinute).toFixed(2)}×`;
  }
  return { rows, ratios };
}

export interface IdleCost {
  workers: number;
  seconds: number;
  /** Per worker, counted in its own pg clients (includes the LISTEN connection). */
  queriesPerMinutePerWorker: number[];
  /** Whole database, all sessions: committed transactions per minute per worker. */
  xactPerMinutePerWorker: number;
  pollMs: string;
  heartbeatMs: string;
}

/** Production defaults for the poll and heartbeat (no test overrides): what a quiet deployment pays. */
export async function idleCost(
  serverUrl: string,
  opts: { workers?: number; windowMs?: number } = {},
): Promise<IdleCost> {
  const workers = opts.workers ?? 2;
  const windowMs = opts.windowMs ?? 30_000;
  return withFreshDatabase(serverUrl, async (url) => {
    const env = { HERALD_POLL_MS: "2000", HERALD_HEARTBEAT_MS: "5000" };
    const procs = await Promise.all(Array.from({ length: workers }, () => BenchWorker.start("herald", 4, { env })));
    const pool = new pg.Pool({ connectionString: url, max: 1 });
    pool.on("error", () => {});
    const xact = async () =>
      Number(
        (await pool.query(`SELECT xact_commit::bigint AS n FROM pg_stat_database WHERE datname = current_database()`))
          .rows[0].n,
      );
    try {
      await Promise.all(procs.map((p) => p.go()));
      // Past start-up (first heartbeat, first claims) before the window opens.
      await sleep(3000);
      const q0 = await Promise.all(procs.map((p) => p.report()));
      // The statistics collector reports at most every second or so; the window is long enough for that.
      await pool.query(`SELECT pg_stat_clear_snapshot()`);
      const x0 = await xact();
      const t0 = performance.now();
      await sleep(windowMs);
      const q1 = await Promise.all(procs.map((p) => p.report()));
      await pool.query(`SELECT pg_stat_clear_snapshot()`);
      const x1 = await xact();
      const minutes = (performance.now() - t0) / 60_000;
      return {
        workers,
        seconds: Number((minutes * 60).toFixed(1)),
        queriesPerMinutePerWorker: q1.map((r, i) => Math.round((r.queries - q0[i].queries) / minutes)),
        xactPerMinutePerWorker: Math.round((x1 - x0) / minutes / workers),
        pollMs: env.HERALD_POLL_MS,
        heartbeatMs: env.HERALD_HEARTBEAT_MS,
      };
    } finally {
      await Promise.all(procs.map((p) => p.stop()));
      await pool.end();
    }
  });
}
