// The raw `pg` path the lease loop ran before Kysely (7095ce2: lib/db/client.ts queryRows / sqlTransaction,
// lib/limits/fair-claim-sql.ts, claimExecution and markTerminal in lib/tasks/sql.ts), copied here so that
// bench/kysely-cpu.ts and bench/kysely-js.ts can compare against it after the old layer is deleted.
import { createHash } from "node:crypto";
import type pg from "pg";
import { Prisma } from "../lib/db/generated/client";
import { getPool } from "../lib/db/client";
import { env } from "../lib/config/env";
import { limits } from "../lib/limits/config";
import { withTransactionRetry } from "../lib/db/retry";
import { ACTIVE_STATUSES, TERMINAL_STATUSES } from "../lib/contract/task";

const MARK = "/* prepared */";
const PREPARED = Prisma.raw(MARK);
const names = new Map<string, string>();
// Named by text as the old layer did (and as Kysely's statements are): one name never stands for two texts.
function nameOf(text: string): string | undefined {
  if (!text.includes(MARK)) return undefined;
  let name = names.get(text);
  if (name === undefined) names.set(text, (name = `h_${createHash("sha1").update(text).digest("base64url")}`));
  return name;
}

export type Run = <T>(q: Prisma.Sql) => Promise<T[]>;
const runOn =
  (client: pg.Pool | pg.PoolClient): Run =>
  async <T>(q: Prisma.Sql) =>
    (await client.query({ name: nameOf(q.text), text: q.text, values: q.values })).rows as T[];

/** queryRows: one statement on any pool connection. */
export const onPool = (): Run => runOn(getPool());

/** sqlTransaction: BEGIN with the timeout, the body, COMMIT (ROLLBACK on a throw), the retry policy around it. */
export const inTransaction = <T>(fn: (run: Run) => Promise<T>): Promise<T> => withTransactionRetry(() => once(fn));

async function once<T>(fn: (run: Run) => Promise<T>): Promise<T> {
  const client = await getPool().connect();
  let broken: Error | undefined;
  try {
    await client.query(`BEGIN; SET LOCAL statement_timeout = ${env("HERALD_STATEMENT_TIMEOUT_MS")}`);
    const result = await fn(runOn(client));
    if ((await client.query("COMMIT")).command === "ROLLBACK") throw new Error("rolled back at COMMIT");
    return result;
  } catch (err) {
    await client.query("ROLLBACK").catch((e: Error) => (broken = e));
    throw err;
  } finally {
    client.release(broken);
  }
}

const list = (values: readonly string[]) => Prisma.raw(values.map((v) => `'${v}'`).join(", "));
const ACTIVE = Prisma.sql`(${list(ACTIVE_STATUSES)})`;
const TERMINAL = list(TERMINAL_STATUSES);
const literal = (n: number) => Prisma.raw(String(n));

function fairPick(due: (a: string) => Prisma.Sql, order: Prisma.Sql, held: Prisma.Sql, limit: number): Prisma.Sql {
  const t = Prisma.raw(`"task"`);
  const slots = literal(limits().slotsPerLoop);
  return Prisma.sql`${PREPARED}
    WITH held AS (
      SELECT h."ownerId", count(*)::int AS n FROM ${t} h WHERE ${held} GROUP BY h."ownerId"
    ), win AS (
      SELECT c.id, c."ownerId", row_number() OVER (ORDER BY ${order}) AS pos FROM ${t} c
      WHERE ${due("c")} AND c."ownerId" NOT IN (SELECT "ownerId" FROM held WHERE n >= ${slots})
      ORDER BY ${order} LIMIT ${literal(Math.max(32, limit * 16))}
    ), ranked AS (
      SELECT w.id, w.pos, coalesce(held.n, 0) + row_number() OVER (PARTITION BY w."ownerId" ORDER BY w.pos) AS prio
      FROM win w LEFT JOIN held ON held."ownerId" = w."ownerId"
    ), picked AS (
      SELECT r.id, row_number() OVER (ORDER BY r.prio, r.pos) AS ord FROM ranked r
      WHERE r.prio <= ${slots}
      ORDER BY r.prio, r.pos LIMIT ${literal(limit * 4)}
    )
    SELECT d.id FROM picked p JOIN ${t} d ON d.id = p.id
    WHERE ${due("d")}
    ORDER BY p.ord LIMIT ${literal(limit)}
    FOR UPDATE OF d SKIP LOCKED`;
}

/** claimExecutionSql as it was built, per call. */
export function oldClaim(workerId: string, limit: number): Prisma.Sql {
  const due = (a: string) => {
    const c = Prisma.raw(a);
    return Prisma.sql`${c}.status IN ${ACTIVE} AND ${c}."cancelRequestedAt" IS NULL
    AND ${c}."nextRunAt" <= now() AND (${c}."leaseExpiresAt" IS NULL OR ${c}."leaseExpiresAt" < now())
    ${Prisma.empty}`;
  };
  const order = Prisma.sql`c."createdAt", c.id`;
  const held = Prisma.sql`h."leaseToken" IS NOT NULL AND h."leaseExpiresAt" > now()`;
  return Prisma.sql`
    UPDATE "task" t
    SET "leaseOwner" = ${workerId}, "leaseToken" = gen_random_uuid()::text,
        "leaseExpiresAt" = now() + make_interval(secs => ${env("HERALD_TASK_LEASE_MS") / 1000}),
        attempts = t.attempts + 1
    WHERE t.id IN (${fairPick(due, order, held, limit)})
    RETURNING t.*`;
}

const leaseHeld = (token: string) =>
  Prisma.sql`"leaseToken" = ${token} AND "leaseExpiresAt" > now() AND "cancelRequestedAt" IS NULL AND status NOT IN (${TERMINAL})`;

/** markTerminal as it was: guarded by the lease, the whole row back. */
export const oldTerminal = (run: Run, id: string, token: string) =>
  run<{ id: string }>(Prisma.sql`${PREPARED}
    UPDATE "task" SET status = ${"succeeded"}, error = coalesce(${null}, error), "completedAt" = now(), "updatedAt" = now(),
      "leaseOwner" = NULL, "leaseToken" = NULL, "leaseExpiresAt" = NULL, "nextRunAt" = NULL,
      "cancelLeaseOwner" = NULL, "cancelLeaseToken" = NULL, "cancelLeaseExpiresAt" = NULL, "nextCancelAt" = NULL
    WHERE id = ${id} AND status NOT IN (${TERMINAL}) AND ${leaseHeld(token)}
    RETURNING *`);
