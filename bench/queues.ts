// Herald's lease loop against graphile-worker and pg-boss: the same no-op job, the same
// concurrency and job count, the same PostgreSQL (each queue in its own schema), each
// consumer in its own worker process while this process adds jobs and watches.
//   - claim → complete throughput: N jobs queued before the consumer starts, timed from
//     "go" until the last one is complete (capped at CAP_MS: then done / elapsed);
//   - add → start latency: L jobs added one at a time, 200 ms apart, to a running consumer
//     that has caught up, timed from just before the add call to the handler's first line
//     (Herald: the driver's submit, i.e. the first claim).
import { randomUUID } from "node:crypto";
import path from "node:path";
import pg from "pg";
import { BenchWorker, wallNow, type QueueSystem } from "./child";
import { runStandalone } from "./fresh";
import { summary, type Summary } from "./stats";
import { ACTIVE_STATUSES } from "../lib/contract/task";

export interface QueueFigures {
  system: string;
  concurrency: number;
  jobs: number;
  completed: number;
  seconds: number;
  jobsPerSecond: number;
  drained: boolean;
  addToStartMs: Summary;
  /** How long the add call itself took (part of add → start). */
  addCallMs: Summary;
  /** Statements the consumer process sent per job completed in the throughput phase. */
  queriesPerJob: number;
  note?: string;
  [more: string]: unknown;
}

interface Adapter {
  system: QueueSystem;
  label: string;
  batch?: number;
  note?: string;
  setup(): Promise<void>;
  addMany(ids: string[]): Promise<void>;
  addOne(id: string): Promise<void>;
  done(ids: string[]): Promise<number>;
  /** Removes what the throughput phase left queued, so latency is measured on an idle consumer. */
  drop(ids: string[]): Promise<void>;
  extra?(latencyIds: string[]): Promise<Record<string, unknown>>;
  close(): Promise<void>;
}

const CAP_MS = 25_000;
/** Literal, so the count can use task_owner_active_idx (a partial index on these statuses). */
const ACTIVE_SQL = ACTIVE_STATUSES.map((s) => `'${s}'`).join(", ");
const LATENCY_GAP_MS = 200;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function heraldAdapter(url: string, system: "herald" | "herald-loop"): Promise<Adapter> {
  const { setUpDrivers } = await import("../lib/drivers/setup");
  const { noopDriver } = await import("./noop-driver");
  const { startTask } = await import("../lib/tasks/start-task");
  const { benchAccount } = await import("./fresh");
  await setUpDrivers({ noop: noopDriver() });
  const { user, conv } = await benchAccount("queue");
  const pool = new pg.Pool({ connectionString: url, max: 2 });
  pool.on("error", () => {});
  const add = (id: string) =>
    startTask({
      ownerId: user.id,
      conversationId: conv,
      title: id,
      prompt: "noop",
      driver: "noop",
      clientRequestId: id,
    });
  return {
    system,
    label: system === "herald" ? "Herald (task path)" : "Herald (lease loop only)",
    note:
      system === "herald"
        ? "worker process with every loop; per task: claim → submit → claim → step → terminal, with feed events, terminal message, notice and notification outbox"
        : "the tasks Loop with claimExecution (fairPick + SKIP LOCKED) and one guarded terminal commit per task; no feed events",
    async setup() {},
    async addMany(ids) {
      // The path a POST /api/tasks takes (quota lock, insert, feed event, NOTIFY), 8 at a time.
      for (let i = 0; i < ids.length; i += 8) await Promise.all(ids.slice(i, i + 8).map(add));
    },
    async addOne(id) {
      await add(id);
    },
    // As graphile-worker's below: done = added − still open (the account holds only this figure's tasks). Looking up
    // every id with ANY($1) cost 4 ms a poll with 3,000 ids — a fifth of a core every 20 ms taken from Herald's run
    // alone, while graphile-worker's count read only what was left.
    async done(ids) {
      const { rows } = await pool.query(
        `SELECT count(*)::int AS n FROM "task" WHERE "ownerId" = $1 AND status IN (${ACTIVE_SQL})`,
        [user.id],
      );
      return ids.length - rows[0].n;
    },
    async drop(ids) {
      await pool.query(
        `DELETE FROM "task" WHERE "ownerId" = $2 AND "clientRequestId" = ANY($1) AND "leaseToken" IS NULL AND status IN ('submitted', 'queued')`,
        [ids, user.id],
      );
    },
    async extra(ids) {
      if (system !== "herald") return {};
      // The second claim, where a task's first step starts (database clock at both ends).
      const { rows } = await pool.query(
        `SELECT (extract(epoch FROM ("startedAt" - "createdAt")) * 1000)::float8 AS ms FROM "task" WHERE "ownerId" = $2 AND "clientRequestId" = ANY($1) AND "startedAt" IS NOT NULL`,
        [ids, user.id],
      );
      return { addToFirstStepMs: summary(rows.map((r: { ms: number }) => r.ms)) };
    },
    async close() {
      await pool.end();
    },
  };
}

async function graphileAdapter(url: string): Promise<Adapter> {
  const { makeWorkerUtils, Logger } = await import("graphile-worker");
  const utils = await makeWorkerUtils({
    connectionString: url,
    schema: "bench_gw",
    logger: new Logger(() => () => {}),
  });
  const pool = new pg.Pool({ connectionString: url, max: 2 });
  pool.on("error", () => {});
  return {
    system: "graphile-worker",
    label: "graphile-worker",
    async setup() {
      await utils.migrate();
    },
    async addMany(ids) {
      for (let i = 0; i < ids.length; i += 500)
        await utils.addJobs(ids.slice(i, i + 500).map((id) => ({ identifier: "noop", payload: { id } })));
    },
    async addOne(id) {
      await utils.addJob("noop", { id });
    },
    // A completed job is deleted: done = added − still there.
    async done(ids) {
      const { rows } = await pool.query(`SELECT count(*)::int AS n FROM bench_gw._private_jobs`);
      return ids.length - rows[0].n;
    },
    async drop() {
      await pool.query(`DELETE FROM bench_gw._private_jobs WHERE locked_at IS NULL`);
    },
    async close() {
      await utils.release();
      await pool.end();
    },
  };
}

async function pgBossAdapter(url: string, batch: number, note?: string): Promise<Adapter> {
  const { default: PgBoss } = await import("pg-boss");
  const boss = new PgBoss({ connectionString: url, schema: "bench_pgboss", supervise: false, schedule: false, max: 3 });
  boss.on("error", (err) => console.error("[pg-boss]", err));
  const pool = new pg.Pool({ connectionString: url, max: 2 });
  pool.on("error", () => {});
  return {
    system: "pg-boss",
    label: batch === 1 ? "pg-boss" : `pg-boss (batch ${batch})`,
    batch,
    note,
    async setup() {
      await boss.start();
      if (!(await boss.getQueue("noop"))) await boss.createQueue("noop");
    },
    async addMany(ids) {
      for (let i = 0; i < ids.length; i += 500)
        await boss.insert(ids.slice(i, i + 500).map((id) => ({ name: "noop", data: { id } })));
    },
    async addOne(id) {
      await boss.send("noop", { id });
    },
    async done(ids) {
      const { rows } = await pool.query(
        `SELECT count(*)::int AS n FROM bench_pgboss.job WHERE name = 'noop' AND state = 'completed' AND data->>'id' = ANY($1)`,
        [ids],
      );
      return rows[0].n;
    },
    async drop() {
      await pool.query(`DELETE FROM bench_pgboss.job WHERE name = 'noop' AND state = 'created'`);
    },
    async close() {
      await boss.stop({ graceful: false, wait: true });
      await pool.end();
    },
  };
}

async function measure(
  a: Adapter,
  opts: { jobs: number; latencyJobs: number; concurrency: number; env: Record<string, string> },
): Promise<QueueFigures> {
  await a.setup();
  const tag = randomUUID().slice(0, 8);
  const ids = Array.from({ length: opts.jobs }, (_, i) => `${tag}-t${i}`);
  await a.addMany(ids);
  const worker = await BenchWorker.start(a.system, opts.concurrency, { batch: a.batch, env: opts.env });
  try {
    const q0 = (await worker.report()).queries;
    const t0 = performance.now();
    await worker.go();
    let completed = 0;
    while (performance.now() - t0 < CAP_MS) {
      completed = await a.done(ids);
      if (completed === ids.length) break;
      await sleep(20);
    }
    const seconds = (performance.now() - t0) / 1000;
    const q1 = (await worker.report()).queries;
    if (completed < ids.length) {
      await a.drop(ids);
      // What was in flight when the backlog went finishes (or is dropped by its guard) first.
      await sleep(2000);
    }
    await worker.report();

    // Latency: one job at a time into a consumer that has caught up (and sits idle between adds).
    const lat = Array.from({ length: opts.latencyJobs }, (_, i) => `${tag}-l${i}`);
    const addedAt = new Map<string, number>();
    const addCall: number[] = [];
    for (const id of lat) {
      const t = wallNow();
      addedAt.set(id, t);
      await a.addOne(id);
      addCall.push(wallNow() - t);
      // Slower than any consumer here finishes a job: latency of an idle queue, not of a backlog.
      await sleep(LATENCY_GAP_MS);
    }
    const deadline = performance.now() + 15_000;
    while (performance.now() < deadline && (await a.done(lat)) < lat.length) await sleep(20);
    const { starts } = await worker.report();
    const waits = starts.filter(([id]) => addedAt.has(id)).map(([id, t]) => t - addedAt.get(id)!);
    return {
      system: a.label,
      concurrency: opts.concurrency,
      jobs: opts.jobs,
      completed,
      seconds: Number(seconds.toFixed(2)),
      jobsPerSecond: Number((completed / seconds).toFixed(1)),
      drained: completed === ids.length,
      addToStartMs: summary(waits),
      addCallMs: summary(addCall),
      queriesPerJob: Number(((q1 - q0) / Math.max(1, completed)).toFixed(1)),
      ...(a.note ? { note: a.note } : {}),
      ...(await a.extra?.(lat)),
    };
  } finally {
    await worker.stop();
    await a.close();
  }
}

export interface QueueBench {
  rows: QueueFigures[];
  ratios: Record<string, string>;
}

/** The comparison; with no other Herald worker running (they would claim the no-op tasks too). */
export async function queueBench(
  url: string,
  opts: { jobs?: number; latencyJobs?: number; concurrency?: number } = {},
): Promise<QueueBench> {
  const jobs = opts.jobs ?? 1000;
  const latencyJobs = opts.latencyJobs ?? 40;
  const concurrency = opts.concurrency ?? 4;
  const env = { HERALD_WORKER_CONCURRENCY: String(concurrency) };
  const adapters: [string, () => Promise<Adapter>][] = [
    ["herald", () => heraldAdapter(url, "herald")],
    ["herald-loop", () => heraldAdapter(url, "herald-loop")],
    ["graphile-worker", () => graphileAdapter(url)],
    ["pg-boss", () => pgBossAdapter(url, 1)],
    [
      "pg-boss-batch",
      () =>
        pgBossAdapter(
          url,
          25,
          `each of the ${concurrency} fetch loops takes 25 jobs: up to ${concurrency * 25} in flight, not the same concurrency`,
        ),
    ],
  ];
  // BENCH_QUEUES=herald-loop,graphile-worker: a subset, for iterating on one figure.
  const only = process.env.BENCH_QUEUES?.split(",");
  const rows: QueueFigures[] = [];
  for (const [key, make] of adapters) {
    if (only && !only.includes(key)) continue;
    const row = await measure(await make(), { jobs, latencyJobs, concurrency, env });
    rows.push(row);
    if (process.env.BENCH_VERBOSE) console.log(row);
  }
  const ratios: Record<string, string> = {};
  const x = (a: number, b: number) => `${(a / b).toFixed(2)}×`;
  for (const h of rows.filter((r) => r.system.startsWith("Herald"))) {
    for (const o of rows.filter((r) => !r.system.startsWith("Herald"))) {
      ratios[`${h.system} vs ${o.system}: jobs/s`] = x(h.jobsPerSecond, o.jobsPerSecond);
      ratios[`${h.system} vs ${o.system}: add→start p50`] = x(h.addToStartMs.p50, o.addToStartMs.p50);
      ratios[`${h.system} vs ${o.system}: add→start p99`] = x(h.addToStartMs.p99, o.addToStartMs.p99);
    }
  }
  return { rows, ratios };
}

// `BENCH_QUEUES=herald-loop,graphile-worker npx tsx bench/queues.ts [jobs] [concurrency]` on its own throwaway database.
if (process.argv[1] && path.resolve(process.argv[1]) === path.resolve(import.meta.filename)) {
  const [jobs = 1000, concurrency = 4] = process.argv.slice(2).map(Number);
  runStandalone({ HERALD_LIMITS: "off" }, () => queueBench(process.env.DATABASE_URL!, { jobs, concurrency }));
}
