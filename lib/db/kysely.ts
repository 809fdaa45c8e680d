import { env } from "@/lib/config/env";
import {
  CompiledQuery,
  DefaultQueryExecutor,
  Kysely,
  PostgresAdapter,
  PostgresIntrospector,
  PostgresQueryCompiler,
  sql,
  type AbortableQueryOptions,
  type ConnectionProvider,
  type DatabaseConnection,
  type Dialect,
  type DialectAdapter,
  type Driver,
  type QueryCompiler,
  type OperationNode,
  type QueryId,
  type QueryResult,
  type RawNode,
  type RootOperationNode,
  type Transaction,
  type TransactionSettings,
} from "kysely";
import pg from "pg";
import type { DB } from "./generated/kysely.ts";
import type { JsonText } from "./json-column-type.ts";
import { getPool, PREPARED_MARK, statementName } from "./client";
import { withTransactionRetry } from "./retry";

/** A transaction opened by `transaction` (or `transactionWithEvents`): every statement on one connection. */
export type Tx = Transaction<DB>;
/** Where a statement that needs no transaction of its own runs: `db()` or a caller's `Tx`. */
export type Executor = Kysely<DB>;

/**
 * Marks a statement to be prepared once per connection and run by name after that (`PREPARED_MARK` in
 * lib/db/client.ts says which ones may): `.modifyEnd(prepared)` on a builder, `${prepared}` anywhere in a `sql` template.
 */
export const prepared = sql.raw(PREPARED_MARK);

/** A JSON column's value for a write (`Json` in lib/db/json-column-type.ts); SQL NULL for null or undefined. */
export function jsonb(v: null | undefined): null;
export function jsonb(v: unknown): JsonText;
export function jsonb(v: unknown): JsonText | null {
  return v === undefined || v === null ? null : jsonValue(v);
}

/** `jsonb`, except that null or undefined is JSON's `null`, not SQL NULL: for a column that tells the two apart. */
export const jsonValue = (v: unknown): JsonText => JSON.stringify(v ?? null) as JsonText;

// BIGINT is read as a bigint, as Prisma reads it and the generated types say. Per query, not pg's global parsers:
// Prisma's adapter shares the pool and parses its own way. int8[] is left as pg reads it (no such column).
const INT8 = 20;
const typeParsers = {
  getTypeParser: (oid: number, format?: string) =>
    oid === INT8 ? BigInt : pg.types.getTypeParser(oid, format as "text"),
} as pg.CustomTypesConfig;

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
        types: typeParsers,
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
 * Kysely's PostgresDriver with what every Herald transaction has always done (the raw `pg` layer before it): BEGIN and
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

/** A statement run alone: one pool checkout, as HeraldDriver's acquire and release (Connection.of) do it. */
const poolConnections: ConnectionProvider = {
  async provideConnection(consume) {
    const conn = Connection.of(await getPool().connect());
    try {
      return await consume(conn);
    } finally {
      conn.release();
    }
  },
};

/**
 * Kysely's executor with its statement path cut to the provider and the connection. Its own ran each statement
 * through seven async layers (the abort-signal check, the connection provider, the runtime driver's init, mutex and
 * logging checks, acquire and release through our driver, the plugins' result transform): 1.5–3 µs of CPU a
 * statement and their promises to collect, where the old raw `pg` path took none (docs/benchmarks.md, "Typed SQL",
 * bench/kysely-js.ts). With a signal or a plugin (`withPlugin`) it is Kysely's path, unchanged. In a transaction the
 * provider is still Kysely's own (one statement at a time on the transaction's connection, none after COMMIT).
 */
class HeraldExecutor extends DefaultQueryExecutor {
  constructor(
    private readonly compiler: QueryCompiler,
    private readonly dialectAdapter: DialectAdapter,
    private readonly connections: ConnectionProvider,
  ) {
    super(compiler, dialectAdapter, connections);
  }

  override executeQuery<R>(q: CompiledQuery, options?: AbortableQueryOptions): Promise<QueryResult<R>> {
    if (options?.signal || this.plugins.length > 0) return super.executeQuery(q, options);
    return this.connections.provideConnection((conn) => conn.executeQuery<R>(q));
  }

  // Kysely's transaction and connection builders re-wrap the executor around their own provider per statement.
  override withConnectionProvider(connections: ConnectionProvider): DefaultQueryExecutor {
    if (this.plugins.length > 0) return super.withConnectionProvider(connections);
    return new HeraldExecutor(this.compiler, this.dialectAdapter, connections);
  }
}

/**
 * What a tree of `sql` templates compiles to depends only on which template literals it holds, any other fragment
 * text (`sql.raw`'s, `sql.join`'s) and where the parameters sit. Shapes form a tree: a step per token, where a
 * template literal is its own token (one frozen array per call site, for the process's life), other fragments their
 * text (SQL text holds no NUL), a parameter VALUE, a nested template OPEN … CLOSE. Keys that were already hashed make
 * the walk cheaper than building a key string (which cost as much as compiling).
 */
interface Shape {
  readonly next: Map<unknown, Shape>;
  text?: string;
}
const VALUE = Symbol("value");
const OPEN = Symbol("open");
const CLOSE = Symbol("close");
const shapes: Shape = { next: new Map() };
// Bounded: shapes built from runtime text (`sql.raw` of a varying string, `sql.join` of n items) may not repeat.
let shapeCount = 0;
const MAX_SHAPES = 20_000;

function step(at: Shape, token: unknown): Shape | undefined {
  const known = at.next.get(token);
  if (known !== undefined || shapeCount >= MAX_SHAPES) return known;
  const added: Shape = { next: new Map() };
  at.next.set(token, added);
  shapeCount++;
  return added;
}

const fragmentsToken = (f: readonly string[]) =>
  Object.hasOwn(f, "raw") ? f : f.length === 1 ? f[0] : `\0${f.join("\0")}`;

/** The shape reached by `node`'s tree from `at`, its parameters collected in the order Kysely numbers them. */
function walk(node: RawNode, from: Shape, params: unknown[]): Shape | undefined {
  let at = from.next.get(node.sqlFragments) ?? step(from, fragmentsToken(node.sqlFragments));
  for (const p of node.parameters as readonly (OperationNode & { immediate?: boolean; value?: unknown })[]) {
    if (at === undefined) return undefined;
    if (p.kind === "ValueNode" && !p.immediate) {
      params.push(p.value);
      at = step(at, VALUE);
    } else if (p.kind === "RawNode") {
      const inner = step(at, OPEN);
      at = inner && walk(p as RawNode, inner, params);
      at = at && step(at, CLOSE);
    } else return undefined;
  }
  return at;
}

/**
 * Kysely's compiler, except that a statement written as `sql` templates (the hot paths are, AGENTS.md) is compiled
 * once per shape: walking the tree again and again to write the same text cost 2–3 µs of CPU a claim, more than the
 * old raw `pg` layer took to build it, and each run's new text had to be scanned and hashed again to find its prepared
 * statement's name. The text is the first compile's; only the parameters are this run's.
 */
class HeraldCompiler extends PostgresQueryCompiler {
  override compileQuery(node: RootOperationNode, queryId: QueryId): CompiledQuery {
    if (node.kind !== "RawNode") return super.compileQuery(node, queryId);
    const parameters: unknown[] = [];
    const shape = walk(node, shapes, parameters);
    if (shape?.text !== undefined) return Object.freeze({ query: node, queryId, sql: shape.text, parameters });
    const compiled = super.compileQuery(node, queryId);
    if (shape) shape.text = compiled.sql;
    return compiled;
  }
}

const dialect: Dialect = {
  createDriver: () => new HeraldDriver(),
  createQueryCompiler: () => new HeraldCompiler(),
  createAdapter: () => new PostgresAdapter(),
  createIntrospector: (k) => new PostgresIntrospector(k),
};

/**
 * Kysely on HeraldDriver (transactions) and HeraldExecutor (statements). Given as Kysely's internal props, which
 * leave out its RuntimeDriver: its init, mutex and query log are all unused here (no log, pg's pool is concurrent).
 */
function createDb(): Kysely<DB> {
  const executor = new HeraldExecutor(dialect.createQueryCompiler(), dialect.createAdapter(), poolConnections);
  return new Kysely<DB>({ config: { dialect }, dialect, driver: dialect.createDriver(), executor });
}

// Parked on globalThis like the Prisma client (Next dev re-evaluates modules). It holds no pool of its own: each
// checkout asks getPool(), so it outlives closeDb() and a test's new pool.
const globalForKysely = globalThis as unknown as { heraldKysely?: Kysely<DB> };

/** The process's typed query builder, on the same `pg` pool as Prisma (lib/db/client.ts getPool). */
export function db(): Kysely<DB> {
  return (globalForKysely.heraldKysely ??= createDb());
}

/**
 * The one transaction: BEGIN with the statement timeout, `fn`, COMMIT (HeraldDriver). Aborted by Postgres as a
 * deadlock or serialization failure, the whole transaction runs again (lib/db/retry.ts): `fn` must be safe to run
 * twice. Five one-row statements cost 0.4 ms of CPU on `pg` against 2.7 ms in a Prisma interactive transaction.
 */
export function transaction<T>(fn: (tx: Tx) => Promise<T>): Promise<T> {
  return withTransactionRetry(() => db().transaction().execute(fn));
}
