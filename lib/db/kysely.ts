import { env } from "@/lib/config/env";
import {
  CompiledQuery,
  Kysely,
  PostgresAdapter,
  PostgresIntrospector,
  PostgresQueryCompiler,
  sql,
  type DatabaseConnection,
  type Dialect,
  type Driver,
  type Compilable,
  type QueryResult,
  type RawBuilder,
  type Transaction,
  type TransactionSettings,
} from "kysely";
import pg from "pg";
import { Prisma } from "./generated/client.ts";
import type { DB } from "./generated/kysely.ts";
import type { JsonText } from "./json-column-type.ts";
import { getPool, statementName, type SqlTx } from "./client";
import { withTransactionRetry } from "./retry";

/** A transaction opened by `transaction` (or `transactionWithEvents`): every statement on one connection. */
export type Tx = Transaction<DB>;
/** Where a statement that needs no transaction of its own runs: `db()` or a caller's `Tx`. */
export type Executor = Kysely<DB>;

/**
 * Marks a statement to be prepared once per connection and run by name after that (`PREPARED` in lib/db/client.ts
 * says which ones may): `.modifyEnd(prepared)` on a builder, `${prepared}` anywhere in a `sql` template.
 */
export const prepared = sql.raw("/* prepared */");

/** A JSON column's value for a write (`Json` in lib/db/json-column-type.ts); SQL NULL for null or undefined. */
export function jsonb(v: null | undefined): null;
export function jsonb(v: unknown): JsonText;
export function jsonb(v: unknown): JsonText | null {
  return v === undefined || v === null ? null : (JSON.stringify(v) as JsonText);
}

// BIGINT is read as a bigint, as Prisma reads it and the generated types say. Per query, not pg's global parsers:
// Prisma's adapter shares the pool and parses its own way. int8[] is left as pg reads it (no such column).
const INT8 = 20;
const typeParsers = {
  getTypeParser: (oid: number, format?: string) =>
    oid === INT8 ? BigInt : pg.types.getTypeParser(oid, format as "text"),
} as pg.CustomTypesConfig;

// Statements of `legacySql`, which read BIGINT as the string `pg` gives, as they always have.
const legacyQueries = new WeakSet<CompiledQuery>();

const COUNTED = new Set(["INSERT", "UPDATE", "DELETE", "MERGE"]);

const connections = new WeakMap<pg.PoolClient, Connection>();

/** A pool connection as Kysely drives it; a transaction's state lives here and is reset at each checkout. */
class Connection implements DatabaseConnection {
  /** The first statement that failed in the open transaction: once one has, Postgres commits nothing. */
  failed: unknown;
  inTransaction = false;
  /** Set when the connection could not roll back: it is closed, not handed to the next caller mid-transaction. */
  broken: Error | undefined;

  constructor(readonly client: pg.PoolClient) {
    // A connection dropped between two statements of a checkout (the server restarted, the backend was ended) is
    // reported as an 'error' event that no one listens to while the pool lends it out: it would end the process.
    client.on("error", (err) => (this.broken ??= err));
  }

  /** The pool's connection, kept with its state across checkouts (one object, one listener per connection). */
  static of(client: pg.PoolClient): Connection {
    let conn = connections.get(client);
    if (!conn) connections.set(client, (conn = new Connection(client)));
    conn.inTransaction = false;
    conn.failed = undefined;
    return conn;
  }

  release(): void {
    this.client.release(this.broken);
  }

  async executeQuery<R>(q: CompiledQuery): Promise<QueryResult<R>> {
    try {
      const { command, rowCount, rows } = await this.client.query({
        name: statementName(q) || undefined,
        text: q.sql,
        values: q.parameters as unknown[],
        types: legacyQueries.has(q) ? undefined : typeParsers,
      });
      return { rows: rows as R[], numAffectedRows: COUNTED.has(command) ? BigInt(rowCount ?? 0) : undefined };
    } catch (err) {
      if (this.inTransaction) this.failed ??= err;
      throw err;
    }
  }

  // eslint-disable-next-line require-yield
  async *streamQuery(): AsyncIterableIterator<QueryResult<never>> {
    throw new Error("streaming is not set up (no pg-cursor)");
  }
}

/**
 * Kysely's PostgresDriver with what every Herald transaction has always done (sqlTransaction before it): BEGIN and
 * the statement timeout in one round trip, a COMMIT that Postgres answers ROLLBACK throws the first failure (a body
 * that swallowed a deadlock must not be told its writes are in, and the retry policy must see the deadlock), a
 * failed ROLLBACK closes the connection and leaves the body's own error to be thrown. Kysely's own transaction
 * (`db().transaction().execute`) drives these hooks, so a `Tx` is a plain Kysely `Transaction` and nothing else
 * opens transactions; its PostgresDriver could not do the timeout (an extra round trip), the first failure (it
 * throws AbortedTransactionError) nor keep the body's error when ROLLBACK fails (it throws the rollback's).
 */
class HeraldDriver implements Driver {
  async init(): Promise<void> {}

  async acquireConnection(): Promise<Connection> {
    return Connection.of(await getPool().connect());
  }

  async beginTransaction(c: DatabaseConnection, settings: TransactionSettings): Promise<void> {
    const conn = c as Connection;
    const level = settings.isolationLevel ? ` ISOLATION LEVEL ${settings.isolationLevel}` : "";
    // SET LOCAL ends with the transaction, so it is safe behind a transaction pooler, where the connection's own
    // startup setting cannot be sent (getPool).
    try {
      await conn.client.query(`BEGIN${level}; SET LOCAL statement_timeout = ${env("HERALD_STATEMENT_TIMEOUT_MS")}`);
    } catch (err) {
      await this.rollbackTransaction(conn);
      throw err;
    }
    conn.inTransaction = true;
    conn.failed = undefined;
  }

  async commitTransaction(c: DatabaseConnection): Promise<void> {
    const conn = c as Connection;
    const { command } = await conn.client.query("COMMIT");
    conn.inTransaction = false;
    if (command === "ROLLBACK") throw conn.failed ?? new Error("the transaction was rolled back at COMMIT");
  }

  async rollbackTransaction(c: DatabaseConnection): Promise<void> {
    const conn = c as Connection;
    conn.inTransaction = false;
    await conn.client.query("ROLLBACK").catch((e: Error) => (conn.broken = e));
  }

  async releaseConnection(c: DatabaseConnection): Promise<void> {
    (c as Connection).release();
  }

  // The pool belongs to lib/db/client.ts (closeDb), shared with Prisma.
  async destroy(): Promise<void> {}
}

const dialect: Dialect = {
  createDriver: () => new HeraldDriver(),
  createQueryCompiler: () => new PostgresQueryCompiler(),
  createAdapter: () => new PostgresAdapter(),
  createIntrospector: (k) => new PostgresIntrospector(k),
};

// Parked on globalThis like the Prisma client (Next dev re-evaluates modules). It holds no pool of its own: each
// checkout asks getPool(), so it outlives closeDb() and a test's new pool.
const globalForKysely = globalThis as unknown as { heraldKysely?: Kysely<DB> };

/** The process's typed query builder, on the same `pg` pool as Prisma (lib/db/client.ts getPool). */
export function db(): Kysely<DB> {
  return (globalForKysely.heraldKysely ??= new Kysely<DB>({ dialect }));
}

/**
 * The one transaction: BEGIN with the statement timeout, `fn`, COMMIT (HeraldDriver). Aborted by Postgres as a
 * deadlock or serialization failure, the whole transaction runs again (lib/db/retry.ts): `fn` must be safe to run
 * twice. Five one-row statements cost 0.4 ms of CPU on `pg` against 2.7 ms in a Prisma interactive transaction.
 */
export function transaction<T>(fn: (tx: Tx) => Promise<T>): Promise<T> {
  return withTransactionRetry(() => db().transaction().execute(fn));
}

/** A Prisma.Sql statement as Kysely runs it, BIGINT still a string. */
function legacyQuery(query: TemplateStringsArray | Prisma.Sql, values: unknown[]): CompiledQuery {
  const q = query instanceof Prisma.Sql ? query : Prisma.sql(query, ...(values as Prisma.Sql[]));
  const compiled = CompiledQuery.raw(q.text, q.values);
  legacyQueries.add(compiled);
  return compiled;
}

/**
 * @deprecated Only while call sites move to Kysely: the old raw-SQL interface on a Kysely executor (the same
 * connection inside a transaction), with the old reading of BIGINT as a string.
 */
export function legacySql(on: Executor): SqlTx {
  return {
    $queryRaw: async <R>(query: TemplateStringsArray | Prisma.Sql, ...values: unknown[]) =>
      (await on.executeQuery(legacyQuery(query, values))).rows as R,
    // pg's rowCount, a SELECT's rows included.
    $executeRaw: async (query, ...values) => {
      const r = await on.executeQuery(legacyQuery(query, values));
      return r.numAffectedRows === undefined ? r.rows.length : Number(r.numAffectedRows);
    },
  };
}

/** Whether a transaction handle is Kysely's (the rest are the old `SqlTx`s): for functions taking both while moving. */
export const isKysely = (tx: Executor | SqlTx): tx is Executor => tx instanceof Kysely;

/**
 * @deprecated Only while call sites move: runs a query built on `db()` on either kind of transaction, so a function
 * can move to Kysely before its callers do (`markTerminal` in lib/tasks/sql.ts). A `SqlTx` reads BIGINT its own way.
 */
export async function rowsOn<R>(tx: Executor | SqlTx, q: Compilable<R> | RawBuilder<R>): Promise<R[]> {
  const compiled = "isRawBuilder" in q ? q.compile(db()) : q.compile();
  if (isKysely(tx)) return (await tx.executeQuery(compiled)).rows;
  return tx.$queryRaw<R[]>(prismaSqlOf(compiled));
}

// Kysely numbers its parameters $1…$n in order, each once.
function prismaSqlOf(q: CompiledQuery): Prisma.Sql {
  const strings = q.sql.split(/\$\d+/);
  if (strings.length !== q.parameters.length + 1) throw new Error("a statement with $n outside its parameters");
  return new Prisma.Sql(strings, q.parameters as unknown[]);
}

/** @deprecated Only while call sites move: a Prisma.Sql fragment (`fairPick`'s) inside a Kysely query. */
export function fromPrisma<T = unknown>(q: Prisma.Sql): RawBuilder<T> {
  return sql<T>(q.strings as unknown as TemplateStringsArray, ...q.values);
}
