import { env } from "@/lib/config/env";
import { log } from "@/lib/util/log";
import { behindPooler } from "./urls";
import { createHash } from "node:crypto";
import pg from "pg";
import { PrismaPg } from "@prisma/adapter-pg";
import { PrismaClient } from "./generated/client.ts";

export type Db = PrismaClient;

// One client per process. Next dev re-evaluates modules on every edit, so the
// instance is parked on globalThis to avoid leaking a pool per reload.
const globalForDb = globalThis as unknown as { heraldDb?: PrismaClient; heraldPool?: pg.Pool; heraldPooled?: boolean };

export function databaseUrl(): string {
  const url = env("DATABASE_URL");
  if (!url) throw new Error("DATABASE_URL is not set (npm start sets it when it starts the embedded database)");
  return url;
}

export function getPool(): pg.Pool {
  if (!globalForDb.heraldPool) {
    const url = databaseUrl();
    const pooled = behindPooler(url);
    const timeoutMs = env("HERALD_STATEMENT_TIMEOUT_MS");
    const pool = new pg.Pool({
      connectionString: url,
      max: env("HERALD_DB_POOL_SIZE"),
      // A startup parameter costs no round trip and bounds every statement of the connection, Prisma's included
      // (a slow search of a large account no longer holds a pool connection for minutes). A pooler refuses or drops
      // startup parameters it does not know, so there the role's own setting must do it (checkPoolerTimeout).
      ...(pooled || timeoutMs === 0 ? {} : { statement_timeout: timeoutMs }),
    });
    // An idle connection dropped by the server (restart, failover) must not crash
    // the process; the pool replaces it on the next checkout.
    pool.on("error", (err) => log("db").warn({ err }, "idle connection lost"));
    globalForDb.heraldPool = pool;
    globalForDb.heraldPooled = pooled;
    if (pooled) void checkPoolerTimeout(pool, timeoutMs);
  }
  return globalForDb.heraldPool;
}

/** Whether this process's pool goes through a transaction-mode pooler (no named statements there). */
const pooledPool = () => (globalForDb.heraldPool ? globalForDb.heraldPooled === true : behindPooler());

/**
 * Behind a pooler the statement timeout comes from the server side (`ALTER ROLE … SET statement_timeout`): one look
 * at what the pool's connections actually run with, and one warning when it is missing or longer than configured.
 */
async function checkPoolerTimeout(pool: pg.Pool, wantMs: number): Promise<void> {
  if (wantMs === 0) return;
  try {
    const { rows } = await pool.query<{ ms: string }>(
      "SELECT setting AS ms FROM pg_settings WHERE name = 'statement_timeout'",
    );
    const ms = Number(rows[0]?.ms ?? 0);
    if (ms === 0 || ms > wantMs) {
      log("db").warn(
        `DATABASE_URL is a pooler's and its connections run with statement_timeout ${ms === 0 ? "off" : `${ms} ms`} (HERALD_STATEMENT_TIMEOUT_MS is ${wantMs}); ` +
          `set it on the role: ALTER ROLE <role> SET statement_timeout = '${wantMs}ms' (docs/operations.md#connection-poolers)`,
      );
    }
  } catch (err) {
    log("db").warn({ err }, "could not read the pooler connections' statement_timeout");
  }
}

/**
 * Marks a statement to be prepared once per connection and run by name after that,
 * so Postgres can keep its plan: the lease loops' claims run many times a second and
 * took as long to plan as to run, and so do the statements every task and turn runs
 * (feed events, message appends, the row guards; a one-step task's path got 8 % faster).
 * Only statements whose text never varies may carry it (each distinct text stays
 * prepared on every connection). Kysely's statements carry it as `prepared` (lib/db/kysely.ts).
 */
export const PREPARED_MARK = "/* prepared */";

// An empty name leaves the statement unnamed (pg prepares only when `name` is truthy).
// Named per text once: hashing the text on every run cost 1 % of a busy worker's CPU.
const statementNames = new Map<string, string>();
// Behind a transaction-mode pooler every statement is unnamed: a name prepared on one server connection is unknown
// on the next (26000) or already taken there (42P05), and PgBouncer before 1.21 cannot track them.
export const statementName = (q: { sql: string }) => {
  if (!q.sql.includes(PREPARED_MARK) || pooledPool()) return "";
  let name = statementNames.get(q.sql);
  if (name === undefined)
    statementNames.set(q.sql, (name = `h_${createHash("sha1").update(q.sql).digest("base64url")}`));
  return name;
};

/** Prisma's model calls (no transactions: those are Kysely's `transaction`, lib/db/kysely.ts). */
export function getDb(): PrismaClient {
  globalForDb.heraldDb ??= new PrismaClient({
    adapter: new PrismaPg(getPool(), { statementNameGenerator: statementName }),
    errorFormat: "minimal",
  });
  return globalForDb.heraldDb;
}

export async function closeDb(): Promise<void> {
  const { heraldDb, heraldPool } = globalForDb;
  globalForDb.heraldDb = undefined;
  globalForDb.heraldPool = undefined;
  globalForDb.heraldPooled = undefined;
  await heraldDb?.$disconnect();
  await heraldPool?.end();
}
