import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { randomUUID } from "node:crypto";
import pg from "pg";
import { getDb } from "@/lib/db/client";
import { sql } from "kysely";
import { patientClient, signUp, waitFor, type TestUser } from "@/tests/helpers";
import { emitEvent, transactionWithEvents } from "./emit";

describe("transactionWithEvents aborted by a real deadlock", () => {
  let user: TestUser;
  let other: pg.Client;
  beforeAll(async () => {
    user = await signUp("Deadlock");
    // The other side looks for the cycle later, so the transaction under test is the one Postgres aborts.
    other = await patientClient();
  });
  afterAll(() => other.end());

  it("runs again and commits once: the aborted run's buffered events are never written", async () => {
    const db = getDb();
    const [a, b] = await Promise.all(
      [1, 2].map(() => db.conversation.create({ data: { ownerId: user.id, title: "lock" } })),
    );
    const seqBefore = (await db.user.findUniqueOrThrow({ where: { id: user.id } })).eventSeq;
    const tag = randomUUID();
    await other.query("BEGIN");
    await other.query(`UPDATE "conversation" SET title = 'other' WHERE id = $1`, [b.id]);

    let runs = 0;
    let pid = 0;
    const committed = transactionWithEvents(async (tx) => {
      runs++;
      ({
        rows: [{ pid }],
      } = await sql<{ pid: number }>`SELECT pg_backend_pid() AS pid`.execute(tx));
      await tx
        .updateTable("conversation")
        .set({ title: `mine ${runs}` })
        .where("id", "=", a.id)
        .execute();
      // Buffered until the end of the run: an aborted run must take it with it.
      await emitEvent(tx, user.id, { type: "task.updated", data: { task: { tag, run: runs } as never } });
      await tx
        .updateTable("conversation")
        .set({ title: `mine ${runs}` })
        .where("id", "=", b.id)
        .execute();
      return runs;
    });
    await waitFor(
      async () =>
        pid !== 0 &&
        (await other.query(`SELECT 1 FROM pg_stat_activity WHERE pid = $1 AND wait_event_type = 'Lock'`, [pid]))
          .rowCount === 1,
      10_000,
      "the transaction to wait on the other's row",
    );
    // Closes the cycle: Postgres aborts the waiting transaction, this update goes through.
    await other.query(`UPDATE "conversation" SET title = 'other' WHERE id = $1`, [a.id]);
    await other.query("COMMIT");

    expect(await committed).toBe(2);
    const events = await db.event.findMany({
      where: { ownerId: user.id, payload: { path: ["task", "tag"], equals: tag } },
    });
    expect(events.map((e) => (e.payload as { task: { run: number } }).task.run)).toEqual([2]);
    const seqAfter = (await db.user.findUniqueOrThrow({ where: { id: user.id } })).eventSeq;
    expect(Number(seqAfter - seqBefore)).toBe(1);
    expect(Number(events[0].seq)).toBe(Number(seqAfter));
  });
});
