// CPU per job of the lease loop's statements on the old raw `pg` path (Prisma.sql texts run by queryRows /
// sqlTransaction, as at 7095ce2) against Kysely's (claimExecution, markTerminal in lib/tasks/sql.ts), in one process
// on one pool, warm, blocks alternated. On a shared machine throughput is noise; this process's CPU time
// (process.cpuUsage: JS, pg's parsing and garbage collection) per job is not. docs/benchmarks.md, "Typed SQL".
//   npx tsx bench/kysely-cpu.ts [jobsPerBlock=400] [rounds=8]
// Cases: loop = claim + guarded terminal write, each on its own pool checkout (the lease-loop bench's job);
// tx = the claim, then the terminal write inside a transaction (BEGIN … COMMIT, as a task's step commits).
import { randomUUID } from "node:crypto";
import path from "node:path";
import { runStandalone } from "./fresh";
import { summary } from "./stats";

type Job = () => Promise<void>;
type Case = Record<"old" | "kysely", Job>;

async function cases(ownerId: string): Promise<Record<string, Case>> {
  const { Prisma } = await import("../lib/db/generated/client");
  const { queryRows, poolSql, sqlTransaction, PREPARED } = await import("../lib/db/client");
  const { db, transaction } = await import("../lib/db/kysely");
  const { sqlList } = await import("../lib/db/sql-list");
  const { fairPick, onlyRows } = await import("../lib/limits/fair-claim");
  const { claimExecution, markTerminal } = await import("../lib/tasks/sql");
  const { ACTIVE_STATUSES, TERMINAL_STATUSES } = await import("../lib/contract/task");
  const { env } = await import("../lib/config/env");
  const ACTIVE = Prisma.sql`(${sqlList(ACTIVE_STATUSES)})`;
  const TERMINAL = sqlList(TERMINAL_STATUSES);
  // The statements of 7095ce2:lib/tasks/sql.ts, built the way they were built there (per call).
  const oldClaim = () => {
    const due = (a: string) => {
      const c = Prisma.raw(a);
      return Prisma.sql`${c}.status IN ${ACTIVE} AND ${c}."cancelRequestedAt" IS NULL
    AND ${c}."nextRunAt" <= now() AND (${c}."leaseExpiresAt" IS NULL OR ${c}."leaseExpiresAt" < now())
    ${onlyRows(c, null)}`;
    };
    const pick = fairPick({
      table: "task",
      due,
      order: Prisma.sql`c."createdAt", c.id`,
      held: Prisma.sql`h."leaseToken" IS NOT NULL AND h."leaseExpiresAt" > now()`,
      limit: 1,
    });
    return queryRows<{ id: string; leaseToken: string }>(Prisma.sql`
    UPDATE "task" t
    SET "leaseOwner" = ${"bench"}, "leaseToken" = gen_random_uuid()::text,
        "leaseExpiresAt" = now() + make_interval(secs => ${env("HERALD_TASK_LEASE_MS") / 1000}),
        attempts = t.attempts + 1
    WHERE t.id IN (${pick})
    RETURNING t.*`);
  };
  const oldTerminal = (tx: import("../lib/db/client").SqlTx, id: string, token: string) =>
    tx.$queryRaw<unknown[]>`${PREPARED}
    UPDATE "task" SET status = ${"succeeded"}, error = coalesce(${null}, error), "completedAt" = now(), "updatedAt" = now(),
      "leaseOwner" = NULL, "leaseToken" = NULL, "leaseExpiresAt" = NULL, "nextRunAt" = NULL,
      "cancelLeaseOwner" = NULL, "cancelLeaseToken" = NULL, "cancelLeaseExpiresAt" = NULL, "nextCancelAt" = NULL
    WHERE id = ${id} AND status NOT IN (${TERMINAL}) AND ${Prisma.sql`"leaseToken" = ${token} AND "leaseExpiresAt" > now() AND "cancelRequestedAt" IS NULL AND status NOT IN (${TERMINAL})`}
    RETURNING *`;
  const must = <T>(t: T | undefined): T => {
    if (t === undefined) throw new Error(`nothing to claim for ${ownerId}`);
    return t;
  };
  const claimNew = async () => must((await claimExecution("bench", 1))[0]);
  const claimOld = async () => must((await oldClaim())[0]);
  return {
    loop: {
      old: async () => {
        const t = await claimOld();
        await oldTerminal(poolSql(), t.id, t.leaseToken);
      },
      kysely: async () => {
        const t = await claimNew();
        await markTerminal(db(), t.id, "succeeded", null, t.leaseToken);
      },
    },
    tx: {
      old: async () => {
        const t = await claimOld();
        await sqlTransaction((tx) => oldTerminal(tx, t.id, t.leaseToken));
      },
      kysely: async () => {
        const t = await claimNew();
        await transaction((tx) => markTerminal(tx, t.id, "succeeded", null, t.leaseToken));
      },
    },
  };
}

/** CPU µs per job over one block of `n` jobs. */
async function block(job: Job, n: number): Promise<number> {
  const start = process.cpuUsage();
  for (let i = 0; i < n; i++) await job();
  const { user, system } = process.cpuUsage(start);
  return (user + system) / n;
}

async function cpuBench(jobs: number, rounds: number) {
  const { setUpDrivers } = await import("../lib/drivers/setup");
  const { noopDriver } = await import("./noop-driver");
  const { startTask } = await import("../lib/tasks/start-task");
  const { benchAccount } = await import("./fresh");
  const { db } = await import("../lib/db/kysely");
  const { sql } = await import("kysely");
  setUpDrivers({ noop: noopDriver() });
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
    // Round 0 warms both paths (JIT, prepared statements on each connection) and is not counted.
    for (let r = 0; r <= rounds; r++) {
      for (const side of (r % 2 ? ["kysely", "old"] : ["old", "kysely"]) as ("old" | "kysely")[]) {
        if (only && only[1] !== side) continue;
        await requeue();
        const v = await block(c[side], jobs);
        if (r > 0) us[side].push(v);
      }
    }
    const s = { old: summary(us.old), kysely: summary(us.kysely) };
    if (only) s.old = s.kysely = summary(us[only[1] as "old" | "kysely"]);
    out[name] = { ...s, kyselyOverOldUs: +(s.kysely.p50 - s.old.p50).toFixed(1) };
  }
  return out;
}

if (process.argv[1] && path.resolve(process.argv[1]) === path.resolve(import.meta.filename)) {
  const jobs = Number(process.argv[2] ?? 400);
  const rounds = Number(process.argv[3] ?? 8);
  runStandalone({ HERALD_LIMITS: "off" }, () => cpuBench(jobs, rounds));
}
