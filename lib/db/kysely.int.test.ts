import { beforeAll, describe, expect, it } from "vitest";
import pg from "pg";
import { PostgresQueryCompiler, sql, type RawBuilder } from "kysely";
import { env } from "@/lib/config/env";
import { getPool } from "./client";
import { db, jsonb, prepared, transaction } from "./kysely";
import { signUp, type TestUser } from "@/tests/helpers";

let user: TestUser;
beforeAll(async () => {
  user = await signUp("Kysely");
});

describe("transaction", () => {
  // Its retry policy (an abort, a swallowed abort, a real deadlock) is tested in retry.int.test.ts.
  it("bounds its statements with SET LOCAL statement_timeout, in BEGIN's round trip", async () => {
    const ms = await transaction(
      async (tx) =>
        (await sql<{ ms: string }>`SELECT setting AS ms FROM pg_settings WHERE name = 'statement_timeout'`.execute(tx))
          .rows,
    );
    expect(Number(ms[0].ms)).toBe(env("HERALD_STATEMENT_TIMEOUT_MS"));
  });

  it("a connection that cannot roll back is closed; the body's own error is thrown", async () => {
    const killer = new pg.Client({ connectionString: env("DATABASE_URL") });
    await killer.connect();
    try {
      const err = await transaction(async (tx) => {
        const { rows } = await sql<{ pid: number }>`SELECT pg_backend_pid() AS pid`.execute(tx);
        await killer.query("SELECT pg_terminate_backend($1)", [rows[0].pid]);
        throw new Error("the body's failure");
      }).catch((e: unknown) => e);
      expect((err as Error).message).toBe("the body's failure");
      expect(await transaction(async (tx) => (await sql<{ one: number }>`SELECT 1 AS one`.execute(tx)).rows)).toEqual([
        { one: 1 },
      ]);
    } finally {
      await killer.end();
    }
  });
});

describe("db()", () => {
  it("reads BIGINT as a bigint, timestamps as Dates", async () => {
    const row = await db()
      .selectFrom("user")
      .select(["eventSeq", "createdAt"])
      .where("id", "=", user.id)
      .executeTakeFirstOrThrow();
    expect(typeof row.eventSeq).toBe("bigint");
    expect(row.createdAt).toBeInstanceOf(Date);
  });

  it("writes a JSON array through jsonb() as JSON, not as a Postgres array", async () => {
    const { id } = await db()
      .insertInto("conversation")
      .values({ ownerId: user.id, title: "json", updatedAt: sql`now()`, apMetadata: jsonb([1, { a: "b" }]) })
      .returning("id")
      .executeTakeFirstOrThrow();
    const row = await db()
      .selectFrom("conversation")
      .select("apMetadata")
      .where("id", "=", id)
      .executeTakeFirstOrThrow();
    expect(row.apMetadata).toEqual([1, { a: "b" }]);
  });

  it("prepares a statement carrying `prepared` once per connection, by name", async () => {
    const names = await transaction(async (tx) => {
      const q = () => tx.selectFrom("user").select("id").where("id", "=", user.id).modifyEnd(prepared).execute();
      await q();
      await q();
      const { rows } = await sql<{ statement: string }>`SELECT statement FROM pg_prepared_statements`.execute(tx);
      return rows.map((r) => r.statement);
    });
    expect(names.filter((s) => s.includes("/* prepared */") && s.includes('from "user"'))).toHaveLength(1);
  });
});

describe("connections", () => {
  it("keeps one 'error' listener on a connection while it is lent out, however often it is checked out", async () => {
    const lent: pg.PoolClient[] = [];
    const onAcquire = (c: pg.PoolClient) => lent.push(c);
    getPool().on("acquire", onAcquire);
    try {
      for (let i = 0; i < 6; i++) await sql`SELECT 1`.execute(db());
      const inTx = await transaction(async (tx) => {
        await sql`SELECT 1`.execute(tx);
        return lent.at(-1)!.listenerCount("error");
      });
      // pg-pool takes its idle listener off at checkout: what is left is ours, once.
      expect(inTx).toBe(1);
      const inStatement = await sql`SELECT 1`.execute(db()).then(() => lent.at(-1)!);
      expect(lent.length).toBeGreaterThanOrEqual(8);
      expect(new Set(lent).has(inStatement)).toBe(true);
    } finally {
      getPool().off("acquire", onAcquire);
    }
  });

  it("a statement that fails on its own leaves the pool usable and throws pg's error", async () => {
    const err = await sql`SELECT 1/0`.execute(db()).catch((e: unknown) => e);
    expect((err as { code?: string }).code).toBe("22012");
    expect((await sql<{ one: number }>`SELECT 1 AS one`.execute(db())).rows).toEqual([{ one: 1 }]);
  });
});

describe("compiled texts", () => {
  const kysely = new PostgresQueryCompiler();
  const compiled = (q: RawBuilder<unknown>) => {
    const { sql: text, parameters } = q.compile(db());
    const theirs = kysely.compileQuery(q.toOperationNode(), { queryId: "x" });
    return { text, parameters, same: text === theirs.sql && parameters.join() === theirs.parameters.join() };
  };
  // One call site, built with different nested templates, raw text and values: each compiles as Kysely would.
  const guard = (token: string | undefined, limit: number, ids: string[]) =>
    sql`SELECT id FROM "task" WHERE ${token === undefined ? sql`true` : sql`"leaseToken" = ${token}`}
      AND id = ANY(${ids}::text[]) ${prepared} LIMIT ${sql.raw(String(limit))} OFFSET ${sql.lit(limit)}`;

  it("reuses a template's text with this run's parameters, and tells its variants apart", () => {
    const a = compiled(guard("t1", 3, ["a"]));
    const b = compiled(guard("t2", 3, ["b", "c"]));
    const c = compiled(guard(undefined, 3, ["d"]));
    const d = compiled(guard("t3", 4, []));
    for (const x of [a, b, c, d]) expect(x.same).toBe(true);
    expect(a.text).toBe(b.text);
    expect(b.parameters).toEqual(["t2", ["b", "c"]]);
    expect(c.text).not.toBe(a.text);
    expect(c.parameters).toEqual([["d"]]);
    expect(d.text).toContain("LIMIT 4 OFFSET 4");
    expect(
      compiled(sql`SELECT ${sql.join([1, 2, 3])}, ${sql.ref("task.id")}, ${sql.join([sql`1`, sql.raw("x")])}`).same,
    ).toBe(true);
  });

  it("runs a reused text with its own parameters", async () => {
    const one = (v: number) => sql<{ v: number }>`SELECT ${v}::int AS v ${prepared}`.execute(db());
    expect((await one(1)).rows).toEqual([{ v: 1 }]);
    expect((await one(2)).rows).toEqual([{ v: 2 }]);
  });
});
