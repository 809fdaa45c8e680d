import { env } from "@/lib/config/env";
import { createHash } from "node:crypto";
import pg from "pg";
import { PrismaPg } from "@prisma/adapter-pg";
import { Prisma, PrismaClient } from "./generated/client.ts";

export type Db = PrismaClient;
export type Tx = Parameters<Parameters<PrismaClient["$transaction"]>[0]>[0];

// One client per process. Next dev re-evaluates modules on every edit, so the
// instance is parked on globalThis to avoid leaking a pool per reload.
const globalForDb = globalThis as unknown as { heraldDb?: PrismaClient; heraldPool?: pg.Pool };

export function databaseUrl(): string {
  const url = env("DATABASE_URL");
  if (!url) throw new Error("DATABASE_URL is not set (npm start sets it when it starts the embedded database)");
  return url;
}

export function getPool(): pg.Pool {
  if (!globalForDb.heraldPool) {
    const pool = new pg.Pool({ connectionString: databaseUrl(), max: env("HERALD_DB_POOL_SIZE") });
    // An idle connection dropped by the server (restart, failover) must not crash
    // the process; the pool replaces it on the next checkout.
    pool.on("error", (err) => console.warn(`[db] idle connection lost: ${err.message}`));
    globalForDb.heraldPool = pool;
  }
  return globalForDb.heraldPool;
}

/**
 * Marks a statement to be prepared once per connection and run by name after that,
 * so Postgres can keep its plan: the lease loops' claims run many times a second and
 * took as long to plan as to run, and so do the statements every task and turn runs
 * (feed events, message appends, the row guards; a one-step task's path got 8 % faster).
 * Only statements whose text never varies may carry it (each distinct text stays
 * prepared on every connection).
 */
export const PREPARED = Prisma.raw("/* prepared */");
const PREPARED_MARK = "/* prepared */";

// An empty name leaves the statement unnamed (pg prepares only when `name` is truthy).
// Named per text once: hashing the text on every run cost 1 % of a busy worker's CPU.
const statementNames = new Map<string, string>();
const statementName = (q: { sql: string }) => {
  if (!q.sql.includes(PREPARED_MARK)) return "";
  let name = statementNames.get(q.sql);
  if (name === undefined) statementNames.set(q.sql, (name = `h_${createHash("sha1").update(q.sql).digest("base64url")}`));
  return name;
};

export function getDb(): PrismaClient {
  // Prisma's defaults (2 s to start, 5 s to finish) fail a chat turn whenever the
  // machine is briefly saturated; waiting a little longer is always the better answer.
  globalForDb.heraldDb ??= new PrismaClient({
    adapter: new PrismaPg(getPool(), { statementNameGenerator: statementName }),
    errorFormat: "minimal",
    transactionOptions: { maxWait: 10_000, timeout: 20_000 },
  });
  return globalForDb.heraldDb;
}

export async function closeDb(): Promise<void> {
  const { heraldDb, heraldPool } = globalForDb;
  globalForDb.heraldDb = undefined;
  globalForDb.heraldPool = undefined;
  await heraldDb?.$disconnect();
  await heraldPool?.end();
}
