import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { randomUUID } from "node:crypto";
import pg from "pg";
import { sql } from "kysely";
import { db, transaction, type Tx } from "./kysely";
import { emitEvent, transactionWithEvents } from "@/lib/events/emit";
import { patientClient, signUp, waitFor, type TestUser } from "@/tests/helpers";

/** Postgres aborts the statement as it would a deadlock's victim or a serialization failure, with the real error. */
const abortAs = async (tx: Tx, code: "40P01" | "40001") => {
  await sql`SELECT set_config('herald.test', ${code}, true)`.execute(tx);
  await sql`DO $$ BEGIN RAISE EXCEPTION 'simulated abort' USING ERRCODE = current_setting('herald.test'); END $$`.execute(
    tx,
  );
};

let user: TestUser;
beforeAll(async () => {
  user = await signUp("Retry");
});

const titled = async (title: string) =>
  (
    await db()
      .selectFrom("conversation")
      .select(sql<number>`count(*)::int`.as("n"))
      .where("ownerId", "=", user.id)
      .where("title", "=", title)
      .executeTakeFirstOrThrow()
  ).n;
const insertTitled = (tx: Tx, title: string) =>
  tx.insertInto("conversation").values({ ownerId: user.id, title }).returning("id").executeTakeFirstOrThrow();

describe("a transaction Postgres aborts runs again, from the start", () => {
  it("transaction: the aborted run's writes are rolled back and the second run commits once", async () => {
    const title = `sql-${randomUUID()}`;
    let runs = 0;
    const result = await transaction(async (tx) => {
      runs++;
      await insertTitled(tx, title);
      if (runs === 1) await abortAs(tx, "40P01");
      return runs;
    });
    expect(result).toBe(2);
    expect(await titled(title)).toBe(1);
  });

  it("transaction: a run whose body swallowed the abort is not reported as committed; it runs again", async () => {
    const title = `swallowed-${randomUUID()}`;
    let runs = 0;
    const result = await transaction(async (tx) => {
      runs++;
      await insertTitled(tx, title);
      if (runs === 1) await abortAs(tx, "40001").catch(() => {});
      return runs;
    });
    expect(result).toBe(2);
    expect(await titled(title)).toBe(1);
  });

  it("transactionWithEvents: an aborted run's writes and feed events are dropped; the second run's are in once", async () => {
    const title = `events-${randomUUID()}`;
    const seqOf = async () =>
      (await db().selectFrom("user").select("eventSeq").where("id", "=", user.id).executeTakeFirstOrThrow()).eventSeq;
    const before = await seqOf();
    let runs = 0;
    await transactionWithEvents(async (tx) => {
      runs++;
      const { id } = await insertTitled(tx, title);
      await emitEvent(
        tx,
        user.id,
        { type: "task.updated", data: { task: { title, runs } as never } },
        {
          conversationId: id,
        },
      );
      if (runs === 1) await abortAs(tx, "40001");
    });
    expect(runs).toBe(2);
    expect(await titled(title)).toBe(1);
    expect(await seqOf()).toBe(before + 1n);
    const events = await db()
      .selectFrom("event")
      .select("payload")
      .where("ownerId", "=", user.id)
      .where("seq", ">", before)
      .execute();
    expect(events.map((e) => e.payload)).toEqual([{ task: { title, runs: 2 } }]);
  });

  describe("a real deadlock", () => {
    let other: pg.Client;
    beforeAll(async () => {
      // The other side looks for the cycle later, so the transaction under test is the one Postgres aborts.
      other = await patientClient();
    });
    afterAll(() => other.end());

    it("transaction, aborted while a statement waits on a lock, runs again and commits", async () => {
      const [a, b] = await Promise.all([1, 2].map(() => transaction((tx) => insertTitled(tx, "lock"))));
      await other.query("BEGIN");
      await other.query(`UPDATE "conversation" SET title = 'other' WHERE id = $1`, [b.id]);
      let runs = 0;
      let pid = 0;
      const retitle = (tx: Tx, id: string) =>
        tx
          .updateTable("conversation")
          .set({ title: `mine ${runs}` })
          .where("id", "=", id)
          .execute();
      const tx = transaction(async (tx) => {
        runs++;
        [{ pid }] = (await sql<{ pid: number }>`SELECT pg_backend_pid() AS pid`.execute(tx)).rows;
        await retitle(tx, a.id);
        await retitle(tx, b.id);
        return runs;
      });
      await waitFor(() => waitingOnLock(other, pid), 10_000, "the transaction to wait on the other's row");
      // Closes the cycle: Postgres aborts the waiting transaction, this update goes through.
      await other.query(`UPDATE "conversation" SET title = 'other' WHERE id = $1`, [a.id]);
      await other.query("COMMIT");
      expect(await tx).toBe(2);
      const rows = await db().selectFrom("conversation").select("title").where("id", "in", [a.id, b.id]).execute();
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
