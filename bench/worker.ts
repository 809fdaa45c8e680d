// A bench worker process (spawned by bench/child.ts, talks over IPC): one of
// Herald's worker (the same startWorker() that worker/index.ts runs, plus the
// no-op driver), graphile-worker's runner or pg-boss' workers, each running a
// no-op job. It counts every statement it sends and when each job first ran.
//   argv: <herald|graphile-worker|pg-boss> <concurrency> [pg-boss batch size]
//   parent → child: "go" (start consuming), "report", "stop"
import pg from "pg";

type Msg = "go" | "report" | "stop";
const [system, concurrencyArg, batchArg] = process.argv.slice(2);
const concurrency = Number(concurrencyArg ?? 4);
const url = process.env.DATABASE_URL!;

// Every statement of this process goes through pg.Client#query (Prisma's adapter, the
// LISTEN connection, graphile-worker and pg-boss alike): the idle-cost figure counts here.
let queries = 0;
const byText = new Map<string, number>();
const trace = !!process.env.BENCH_TRACE;
const query = pg.Client.prototype.query;
pg.Client.prototype.query = function (this: pg.Client, ...args: unknown[]) {
  queries += 1;
  if (trace) {
    const a = args[0] as string | { text?: string };
    const text = (typeof a === "string" ? a : (a?.text ?? "?")).replace(/\s+/g, " ").slice(0, 90);
    byText.set(text, (byText.get(text) ?? 0) + 1);
  }
  return (query as (...a: unknown[]) => unknown).apply(this, args);
} as typeof query;

const starts: [string, number][] = [];
const now = () => performance.timeOrigin + performance.now();
const started = (id: string) => starts.push([id, now()]);

async function herald(): Promise<() => Promise<void>> {
  const { setUpDrivers } = await import("../lib/drivers/setup");
  const { noopDriver } = await import("./noop-driver");
  await setUpDrivers({ noop: noopDriver(started) });
  const { startWorker } = await import("../lib/runtime/start-worker");
  const w = await startWorker({ concurrency });
  return () => w.stop();
}

/**
 * Herald's lease loop alone: the real claim (claimExecution: fairPick + SKIP LOCKED) in
 * the real Loop, woken by the real NOTIFY, and one lease-guarded terminal write per task —
 * none of the product work a task's path adds (feed events, messages, notices, outbox).
 */
async function heraldLoop(): Promise<() => Promise<void>> {
  const { Loop } = await import("../lib/fleet/loop");
  const { claimExecution, markTerminal } = await import("../lib/tasks/sql");
  const { closeDb } = await import("../lib/db/client");
  const { db } = await import("../lib/db/kysely");
  const { PgListener } = await import("../lib/events/listener");
  const { WORK_CHANNEL } = await import("../lib/events/channels");
  const id = `bench-loop:${process.pid}`;
  const stopper = new AbortController();
  const loop = new Loop(
    {
      name: "tasks",
      concurrency,
      pollMs: 2000,
      claim: (n) => claimExecution(id, n),
      work: async (t) => {
        started(t.clientRequestId ?? t.id);
        // On Kysely over the shared pg pool, as the worker's own writes after work (lib/db/kysely.ts).
        await markTerminal(db(), t.id, "succeeded", null, t.leaseToken);
      },
    },
    stopper.signal,
  );
  const listener = new PgListener(
    [WORK_CHANNEL],
    () => loop.wake(),
    () => loop.wake(),
    () => {},
  );
  await listener.start();
  const running = loop.start();
  return async () => {
    stopper.abort();
    await running;
    await listener.stop();
    await closeDb();
  };
}

async function graphile(): Promise<() => Promise<void>> {
  const { run, Logger } = await import("graphile-worker");
  const runner = await run({
    connectionString: url,
    schema: "bench_gw",
    concurrency,
    noHandleSignals: true,
    pollInterval: 2000,
    logger: new Logger(() => () => {}),
    taskList: {
      noop: async (payload) => {
        started((payload as { id: string }).id);
      },
    },
  });
  return () => runner.stop();
}

async function pgBoss(): Promise<() => Promise<void>> {
  const { default: PgBoss } = await import("pg-boss");
  const batchSize = Number(batchArg ?? 1);
  const boss = new PgBoss({
    connectionString: url,
    schema: "bench_pgboss",
    supervise: false,
    schedule: false,
    migrate: false,
    max: concurrency + 2,
  });
  boss.on("error", (err) => console.error("[pg-boss]", err));
  await boss.start();
  // pg-boss v10 runs one fetch loop per work() call: `concurrency` loops of `batchSize` jobs each.
  for (let i = 0; i < concurrency; i++) {
    await boss.work<{ id: string }>("noop", { pollingIntervalSeconds: 0.5, batchSize }, async (jobs) => {
      await Promise.all(jobs.map(async (j) => started(j.data.id)));
    });
  }
  return () => boss.stop({ graceful: true, wait: true });
}

let stop: (() => Promise<void>) | null = null;
const begin = { herald, "herald-loop": heraldLoop, "graphile-worker": graphile, "pg-boss": pgBoss }[system as string];
if (!begin) throw new Error(`unknown system ${system}`);

process.on("message", async (m: Msg) => {
  try {
    if (m === "go" && !stop) {
      stop = await begin();
      process.send!({ type: "going" });
    } else if (m === "report") {
      if (trace)
        console.error(
          [...byText]
            .sort((x, y) => y[1] - x[1])
            .slice(0, 40)
            .map(([t, n]) => `${n}\t${t}`)
            .join("\n"),
        );
      process.send!({ type: "report", queries, starts: starts.splice(0) });
    } else if (m === "stop") {
      await stop?.();
      process.send!({ type: "stopped" }, () => process.exit(0));
    }
  } catch (err) {
    console.error(`[bench worker ${system}]`, err);
    process.exit(1);
  }
});
// Warm every module a system's start loads before the parent's clock starts: loading them inside the timed window
// counted a module graph's load (half a second for a query builder's) as the loop's throughput.
const warm: Record<string, (() => Promise<unknown>)[]> = {
  herald: [
    () => import("../lib/drivers/setup"),
    () => import("./noop-driver"),
    () => import("../lib/runtime/start-worker"),
  ],
  "herald-loop": [
    () => import("../lib/fleet/loop"),
    () => import("../lib/tasks/sql"),
    () => import("../lib/db/client"),
    () => import("../lib/db/kysely"),
    () => import("../lib/events/listener"),
    () => import("../lib/events/channels"),
  ],
  "graphile-worker": [() => import("graphile-worker")],
  "pg-boss": [() => import("pg-boss")],
};
for (const load of warm[system as string] ?? []) await load();
process.send!({ type: "ready" });
