import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { randomUUID } from "node:crypto";
import pg from "pg";
import { getDb, sqlTransaction, type SqlTx } from "./client";
import { patientClient, signUp, waitFor, type TestUser } from "@/tests/helpers";

/** Postgres aborts the statement as it would a deadlock's victim or a serialization failure, with the real error. */
const abortAs = (tx: Pick<SqlTx, "$executeRaw">, code: "40P01" | "40001") =>
  tx.$executeRaw`SELECT set_config('herald.test', ${code}, true)`.then(
    () =>
      tx.$executeRaw`DO $$ BEGIN RAISE EXCEPTION 'simulated abort' USING ERRCODE = current_setting('herald.test'); END $$`,
  );

let user: TestUser;
beforeAll(async () => {
  user = await signUp("Retry");
});

const titled = (title: string) => getDb().conversation.count({ where: { ownerId: user.id, title } });
const insertTitled = (tx: SqlTx, title: string) =>
  tx.$executeRaw`INSERT INTO "conversation" (id, "ownerId", title, "createdAt", "updatedAt") VALUES (${randomUUID()}, ${user.id}, ${title}, now(), now())`;

describe("a transaction Postgres aborts runs again, from the start", () => {
  it("sqlTransaction: the aborted run's writes are rolled back and the second run commits once", async () => {
    const title = `sql-${randomUUID()}`;
    let runs = 0;
    const result = await sqlTransaction(async (tx) => {
      runs++;
      await insertTitled(tx, title);
      if (runs === 1) await abortAs(tx, "40P01");
      return runs;
    });
    expect(result).toBe(2);
    expect(await titled(title)).toBe(1);
  });

  it("sqlTransaction: a run whose body swallowed the abort is not reported as committed; it runs again", async () => {
    const title = `swallowed-${randomUUID()}`;
    let runs = 0;
    const result = await sqlTransaction(async (tx) => {
      runs++;
      await insertTitled(tx, title);
      if (runs === 1) await abortAs(tx, "40001").catch(() => {});
      return runs;
    });
    expect(result).toBe(2);
    expect(await titled(title)).toBe(1);
  });

  it("Prisma's $transaction: a raw statement's abort (40001) runs it again; its writes are in once", async () => {
    const title = `prisma-${randomUUID()}`;
    let runs = 0;
    await getDb().$transaction(async (tx) => {
      runs++;
      await tx.conversation.create({ data: { ownerId: user.id, title } });
      if (runs === 1) await abortAs(tx, "40001");
    });
    expect(runs).toBe(2);
    expect(await titled(title)).toBe(1);
  });

  describe("a real deadlock", () => {
    let other: pg.Client;
    beforeAll(async () => {
      // The other side looks for the cycle later, so the transaction under test is the one Postgres aborts.
      other = await patientClient();
    });
    afterAll(() => other.end());

    it("Prisma's $transaction, aborted while a model call waits, runs again and commits", async () => {
      const [a, b] = await Promise.all(
        [1, 2].map(() => getDb().conversation.create({ data: { ownerId: user.id, title: "lock" } })),
      );
      await other.query("BEGIN");
      await other.query(`UPDATE "conversation" SET title = 'other' WHERE id = $1`, [b.id]);
      let runs = 0;
      let pid = 0;
      const tx = getDb().$transaction(async (tx) => {
        runs++;
        [{ pid }] = await tx.$queryRaw<{ pid: number }[]>`SELECT pg_backend_pid() AS pid`;
        await tx.conversation.update({ where: { id: a.id }, data: { title: `mine ${runs}` } });
        await tx.conversation.update({ where: { id: b.id }, data: { title: `mine ${runs}` } });
        return runs;
      });
      await waitFor(() => waitingOnLock(other, pid), 10_000, "the transaction to wait on the other's row");
      // Closes the cycle: Postgres aborts the waiting transaction, this update goes through.
      await other.query(`UPDATE "conversation" SET title = 'other' WHERE id = $1`, [a.id]);
      await other.query("COMMIT");
      expect(await tx).toBe(2);
      const rows = await getDb().conversation.findMany({ where: { id: { in: [a.id, b.id] } } });
      expect(rows.map((r) => r.title)).toEqual(["mine 2", "mine 2"]);
    });
  });
});

async function waitingOnLock(client: pg.Client, pid: number): Promise<boolean> {
  if (pid === 0) return false;
  const { rows } = await client.query(`SELECT 1 FROM pg_stat_activity WHERE pid = $1 AND wait_event_type = 'Lock'`, [
    pid,
  ]);
  return rows.length > 0;
}
