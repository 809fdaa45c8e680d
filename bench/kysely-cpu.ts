// CPU per job of the lease loop's statements on the old raw `pg` path (bench/old-pg.ts: Prisma.sql texts run
// as queryRows / sqlTransaction did at 7095ce2) against Kysely's (claimExecution, markTerminal in lib/tasks/sql.ts), in one process
// on one pool, warm, blocks alternated. On a shared machine throughput is noise; this process's CPU time
// (process.cpuUsage: JS, pg's parsing and garbage collection) per job is not. docs/benchmarks.md, "Typed SQL".
//   npx tsx bench/kysely-cpu.ts [jobsPerBlock=400] [rounds=8]
// Cases: loop = claim + guarded terminal write, each on its own pool checkout (the lease-loop bench's job);
// tx = the claim, then the terminal write inside a transaction (BEGIN … COMMIT, as a task's step commits).
import { randomUUID } from "node:crypto";
import path from "node:path";
import { PerformanceObserver } from "node:perf_hooks";
import { runStandalone } from "./fresh";
import { summary } from "./stats";

type Job = () => Promise<void>;
type Case = Record<"old" | "kysely", Job>;

async function cases(ownerId: string): Promise<Record<string, Case>> {
  const { onPool, inTransaction, oldClaim, oldTerminal } = await import("./old-pg");
  const { db, transaction } = await import("../lib/db/kysely");
  const { claimExecution, markTerminal } = await import("../lib/tasks/sql");
  const must = <T>(t: T | undefined): T => {
    if (t === undefined) throw new Error(`nothing to claim for ${ownerId}`);
    return t;
  };
  const claimNew = async () => must((await claimExecution("bench", 1))[0]);
  const claimOld = async () => must((await onPool()<{ id: string; leaseToken: string }>(oldClaim("bench", 1)))[0]);
  return {
    loop: {
      old: async () => {
        const t = await claimOld();
        if (!(await oldTerminal(onPool(), t.id, t.leaseToken)).length) throw new Error(`guard missed ${t.id}`);
      },
      kysely: async () => {
        const t = await claimNew();
        if (!(await markTerminal(db(), t.id, "succeeded", null, t.leaseToken))) throw new Error(`guard missed ${t.id}`);
      },
    },
    tx: {
      old: async () => {
        const t = await claimOld();
        await inTransaction((run) => oldTerminal(run, t.id, t.leaseToken));
      },
      kysely: async () => {
        const t = await claimNew();
        await transaction((tx) => markTerminal(tx, t.id, "succeeded", null, t.leaseToken));
      },
    },
  };
}

/** CPU µs per job over one block of `n` jobs. */
// Garbage collection's pauses, summed as the observer reports them (a block's last ones may land in the next).
let gcMs = 0;
new PerformanceObserver((list) => {
  for (const e of list.getEntries()) gcMs += e.duration;
}).observe({ entryTypes: ["gc"] });

async function block(job: Job, n: number, gcUs: number[]): Promise<number> {
  const gcBefore = gcMs;
  const start = process.cpuUsage();
  for (let i = 0; i < n; i++) await job();
  const { user, system } = process.cpuUsage(start);
  gcUs.push(((gcMs - gcBefore) * 1000) / n);
  return (user + system) / n;
}

async function cpuBench(jobs: number, rounds: number) {
  const { setUpDrivers } = await import("../lib/drivers/setup");
  const { noopDriver } = await import("./noop-driver");
  const { startTask } = await import("../lib/tasks/start-task");
  const { benchAccount } = await import("./fresh");
  const { db } = await import("../lib/db/kysely");
  const { sql } = await import("kysely");
  await setUpDrivers({ noop: noopDriver() });
  const { user, conv } = await benchAccount("cpu");
  for (let i = 0; i < jobs; i += 8)
    await Promise.all(
      Array.from({ length: Math.min(8, jobs - i) }, (_, k) =>
        startTask({
          ownerId: user.id,
          conversationId: conv,
          title: `t${i + k}`,
          prompt: "noop",
          driver: "noop",
          clientRequestId: randomUUID(),
        }),
      ),
    );
  const requeue = async () => {
    await sql`UPDATE "task" SET status = 'queued', "completedAt" = NULL, "nextRunAt" = now(), attempts = 0
      WHERE "ownerId" = ${user.id}`.execute(db());
    await sql`VACUUM ANALYZE "task"`.execute(db());
  };
  const all = await cases(user.id);
  const out: Record<string, unknown> = { jobsPerBlock: jobs, rounds, load: (await import("node:os")).loadavg() };
  // BENCH_ONLY=tx:kysely runs one case and side alone (for --cpu-prof).
  const only = process.env.BENCH_ONLY?.split(":");
  for (const [name, c] of Object.entries(all)) {
    if (only && only[0] !== name) continue;
    const us: Record<"old" | "kysely", number[]> = { old: [], kysely: [] };
    const gc: Record<"old" | "kysely", number[]> = { old: [], kysely: [] };
    // Round 0 warms both paths (JIT, prepared statements on each connection) and is not counted.
    for (let r = 0; r <= rounds; r++) {
      for (const side of (r % 2 ? ["kysely", "old"] : ["old", "kysely"]) as ("old" | "kysely")[]) {
        if (only && only[1] !== side) continue;
        await requeue();
        const v = await block(c[side], jobs, gc[side]).catch(async (err) => {
          const st =
            await sql`SELECT status, ("leaseToken" IS NOT NULL) AS leased, ("nextRunAt" <= now()) AS due, count(*)::int AS n FROM "task" WHERE "ownerId" = ${user.id} GROUP BY 1, 2, 3`.execute(
              db(),
            );
          console.error(name, r, side, JSON.stringify(st.rows));
          throw err;
        });
        if (r > 0) us[side].push(v);
      }
    }
    const s = { old: summary(us.old), kysely: summary(us.kysely) };
    if (only) s.old = s.kysely = summary(us[only[1] as "old" | "kysely"]);
    const gcP50 = (side: "old" | "kysely") => summary(gc[side].slice(1)).p50;
    out[name] = {
      ...s,
      kyselyOverOldUs: +(s.kysely.p50 - s.old.p50).toFixed(1),
      gcUs: { old: gcP50("old"), kysely: gcP50("kysely") },
    };
  }
  return out;
}

if (process.argv[1] && path.resolve(process.argv[1]) === path.resolve(import.meta.filename)) {
  const jobs = Number(process.argv[2] ?? 400);
  const rounds = Number(process.argv[3] ?? 8);
  runStandalone({ HERALD_LIMITS: "off" }, () => cpuBench(jobs, rounds));
}
