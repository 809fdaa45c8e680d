// The JS side alone of the lease loop's statements: the old raw `pg` path (bench/old-pg.ts, as at 7095ce2) against Kysely's (claimExecutionSql, markTerminal), with the pg pool replaced by one
// that answers at once. No I/O and no database, so what differs is building, compiling and the executor's layers
// (bench/kysely-cpu.ts measures the same with Postgres). docs/benchmarks.md, "Typed SQL".
//   npx tsx bench/kysely-js.ts [iterations=30000]
import type pg from "pg";

const N = Number(process.argv[2] ?? 30_000);

// A task row's width: the claim and the terminal write return the whole row.
const row = Object.fromEntries(Array.from({ length: 60 }, (_, i) => [`c${i}`, i]));
const result = { command: "UPDATE", rowCount: 1, rows: [row], fields: [] };
const client = { query: async () => result, release() {}, on() {}, off() {} };
const fakePool = { connect: async () => client, query: async () => result, on() {} };

async function time(f: () => Promise<unknown>): Promise<number> {
  for (let i = 0; i < N / 5; i++) await f();
  const start = process.cpuUsage();
  for (let i = 0; i < N; i++) await f();
  const { user, system } = process.cpuUsage(start);
  return +((user + system) / N).toFixed(2);
}

async function main() {
  // lib/db/client.ts getPool() keeps its pool here.
  Object.assign(globalThis, { heraldPool: fakePool as unknown as pg.Pool, heraldPooled: false });
  process.env.DATABASE_URL ??= "postgres://bench@127.0.0.1:1/none";
  const { onPool, inTransaction, oldClaim, oldTerminal } = await import("./old-pg");
  const { db, transaction } = await import("../lib/db/kysely");
  const { markTerminal, claimExecutionSql } = await import("../lib/tasks/sql");
  const pairs: [string, () => Promise<unknown>, () => Promise<unknown>][] = [
    ["claim", () => onPool()(oldClaim("w", 1)), () => claimExecutionSql("w", 1, null).execute(db())],
    [
      "terminal write",
      () => oldTerminal(onPool(), "id", "tok"),
      () => markTerminal(db(), "id", "succeeded", null, "tok"),
    ],
    [
      "terminal write in a transaction",
      () => inTransaction((run) => oldTerminal(run, "id", "tok")),
      () => transaction((tx) => markTerminal(tx, "id", "succeeded", null, "tok")),
    ],
  ];
  const out: Record<string, { oldUs: number[]; kyselyUs: number[] }> = {};
  for (let round = 0; round < 3; round++)
    for (const [name, old, kysely] of pairs) {
      const o = (out[name] ??= { oldUs: [], kyselyUs: [] });
      o.oldUs.push(await time(old));
      o.kyselyUs.push(await time(kysely));
    }
  console.log(JSON.stringify(out, null, 2));
}

void main();
