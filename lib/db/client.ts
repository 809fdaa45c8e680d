import { env } from "@/lib/config/env";
import { log } from "@/lib/util/log";
import { behindPooler } from "./urls";
import { createHash } from "node:crypto";
import pg from "pg";
import { PrismaPg } from "@prisma/adapter-pg";
import { Prisma, PrismaClient } from "./generated/client.ts";
import { withTransactionRetry } from "./retry";

export type Db = PrismaClient;
export type Tx = Parameters<Parameters<PrismaClient["$transaction"]>[0]>[0];

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
 * prepared on every connection).
 */
export const PREPARED = Prisma.raw("/* prepared */");
const PREPARED_MARK = "/* prepared */";

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

// Named by the text it sends, as Prisma's adapter names its own: one name never stands for two texts on a connection
// (pg refuses that), and a statement both run is prepared once.
const run = <T>(client: pg.Pool | pg.PoolClient, q: Prisma.Sql) =>
  client.query<T & pg.QueryResultRow>({
    name: statementName({ sql: q.text }) || undefined,
    text: q.text,
    values: q.values,
  });

/**
 * Runs one statement on Prisma's own pool without going through Prisma, for the lease loops' claims: a claim there
 * cost 0.7 ms more wall time and 0.5 ms more CPU than the same prepared statement on `pg` (docs/benchmarks.md), and
 * the loop claims one at a time. Only for statements outside a transaction whose columns `pg` parses as Prisma would:
 * every timestamp is TIMESTAMPTZ, and a BIGINT (pg: a string; Prisma: a bigint) must be cast or not read.
 */
export function queryRows<T>(q: Prisma.Sql): Promise<T[]> {
  return poolSql().$queryRaw<T[]>(q);
}

/** The raw-SQL half of a transaction. Functions that need no more take it, and run in either kind of transaction. */
export interface SqlTx {
  $queryRaw<T = unknown>(query: TemplateStringsArray | Prisma.Sql, ...values: unknown[]): Promise<T>;
  $executeRaw(query: TemplateStringsArray | Prisma.Sql, ...values: unknown[]): Promise<number>;
}

/** A JSON value as text for a `::jsonb` parameter (either client sends it as written); SQL NULL for none. */
export const jsonOrNull = (v: unknown) => (v === undefined || v === null ? null : JSON.stringify(v));

const asSql = (query: TemplateStringsArray | Prisma.Sql, values: unknown[]) =>
  query instanceof Prisma.Sql ? query : Prisma.sql(query, ...(values as Prisma.Sql[]));

function sqlOn(client: pg.Pool | pg.PoolClient): SqlTx {
  return {
    $queryRaw: async <R>(query: TemplateStringsArray | Prisma.Sql, ...values: unknown[]) =>
      (await run(client, asSql(query, values))).rows as R,
    $executeRaw: async (query, ...values) => (await run(client, asSql(query, values))).rowCount ?? 0,
  };
}

/** A `SqlTx` whose statements run on their own, each on any connection of the pool (queryRows' caveats). */
export const poolSql = (): SqlTx => sqlOn(getPool());

/**
 * A transaction of raw statements on `pg`, with queryRows' caveats. Prisma's interactive transaction cost 2.7 ms of CPU
 * for five one-row statements where `pg` took 0.4 ms (measured here), so the hottest request paths use this one.
 * A statement may run HERALD_STATEMENT_TIMEOUT_MS (20 s), as long as a Prisma transaction may (getDb's `timeout`). Aborted by Postgres as a deadlock
 * or serialization failure, the whole transaction runs again (lib/db/retry.ts): `fn` must be safe to run twice.
 */
export async function sqlTransaction<T>(fn: (tx: SqlTx) => Promise<T>): Promise<T> {
  return withTransactionRetry(() => sqlTransactionOnce(fn));
}

async function sqlTransactionOnce<T>(fn: (tx: SqlTx) => Promise<T>): Promise<T> {
  const client = await getPool().connect();
  const on = sqlOn(client);
  // The first statement that failed: once one has, Postgres commits nothing, whatever the body made of the error.
  let failed: unknown;
  const noted = <R>(p: Promise<R>) => p.catch((err: unknown) => Promise.reject((failed ??= err)));
  const tx: SqlTx = {
    $queryRaw: <R>(query: TemplateStringsArray | Prisma.Sql, ...values: unknown[]) =>
      noted(on.$queryRaw<R>(query, ...values)),
    $executeRaw: (query, ...values) => noted(on.$executeRaw(query, ...values)),
  };
  let broken: Error | undefined;
  try {
    // SET LOCAL ends with the transaction, so it is safe behind a transaction pooler, where the connection's own
    // startup setting cannot be sent (getPool).
    await client.query(`BEGIN; SET LOCAL statement_timeout = ${env("HERALD_STATEMENT_TIMEOUT_MS")}`);
    const result = await fn(tx);
    // A COMMIT after a failed statement is answered ROLLBACK, not an error: a body that swallowed the failure (a
    // deadlock among them) must not be told its writes are in. Its own error is thrown, so the retry policy sees it.
    if ((await client.query("COMMIT")).command === "ROLLBACK")
      throw failed ?? new Error("the transaction was rolled back at COMMIT");
    return result;
  } catch (err) {
    await client.query("ROLLBACK").catch((e: Error) => (broken = e));
    throw err;
  } finally {
    // A connection that could not roll back is closed, not handed to the next caller mid-transaction.
    client.release(broken);
  }
}

export function getDb(): PrismaClient {
  // Prisma's defaults (2 s to start, 5 s to finish) fail a chat turn whenever the
  // machine is briefly saturated; waiting a little longer is always the better answer.
  globalForDb.heraldDb ??= retryingTransactions(
    new PrismaClient({
      adapter: new PrismaPg(getPool(), { statementNameGenerator: statementName }),
      errorFormat: "minimal",
      transactionOptions: { maxWait: 10_000, timeout: 20_000 },
    }),
  );
  return globalForDb.heraldDb;
}

/**
 * Every `$transaction` of the client (interactive or a batch) under the retry policy of `sqlTransaction`
 * (lib/db/retry.ts), so no call site can forget it. A nested one (`tx.$transaction`, a savepoint) is part of its outer
 * transaction's run: only the outer one is run again.
 */
function retryingTransactions(client: PrismaClient): PrismaClient {
  const once = client.$transaction as (...args: unknown[]) => Promise<unknown>;
  function $transaction(this: unknown, ...args: unknown[]) {
    return this === client ? withTransactionRetry(() => once.apply(client, args)) : once.apply(this, args);
  }
  Object.defineProperty(client, "$transaction", { value: $transaction, writable: true, configurable: true });
  return client;
}

export async function closeDb(): Promise<void> {
  const { heraldDb, heraldPool } = globalForDb;
  globalForDb.heraldDb = undefined;
  globalForDb.heraldPool = undefined;
  globalForDb.heraldPooled = undefined;
  await heraldDb?.$disconnect();
  await heraldPool?.end();
}
