import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { randomUUID } from "node:crypto";
import pg from "pg";
import { getDb } from "@/lib/db/client";
import { createConversationFor, patientClient, signUp, waitFor, type TestUser } from "@/tests/helpers";
import { startTask } from "./start-task";

describe("a retried start while a worker holds its task", () => {
  let user: TestUser;
  let worker: pg.Client;
  beforeAll(async () => {
    user = await signUp("Retried");
    // The worker's side looks for a cycle later, so a deadlock would abort the start, as it did for users.
    worker = await patientClient();
  });
  afterAll(() => worker.end());

  it("is answered with the task, without waiting on the worker's locks, and the worker commits", async () => {
    const conversationId = await createConversationFor(user);
    const input = {
      ownerId: user.id,
      conversationId,
      title: "Retry me",
      prompt: "research retries",
      clientRequestId: randomUUID(),
    };
    const first = await startTask(input);
    expect(first.created).toBe(true);

    // A worker's transaction (transactionWithEvents): the task row first, the account's row last (its events).
    await worker.query("BEGIN");
    await worker.query(`UPDATE "task" SET "updatedAt" = clock_timestamp() WHERE id = $1`, [first.task.id]);
    let settled = false;
    const retried = startTask(input).then(
      (r) => ((settled = true), { ok: r }),
      (err: unknown) => ((settled = true), { err }),
    );
    // Either answered at once, or (the deadlock's first half) waiting on the worker's task row while holding the account's.
    await waitFor(
      async () =>
        settled ||
        (await worker.query(`SELECT 1 FROM pg_stat_activity WHERE pg_backend_pid() = ANY (pg_blocking_pids(pid))`))
          .rowCount! > 0,
      10_000,
      "the retried start to answer or to wait",
    );
    const answeredWhileHeld = settled;
    await worker.query(`UPDATE "user" SET "eventSeq" = "eventSeq" + 1 WHERE id = $1`, [user.id]);
    await worker.query("COMMIT");

    expect(await retried).toEqual({ ok: { task: expect.objectContaining({ id: first.task.id }), created: false } });
    expect(answeredWhileHeld).toBe(true);
    expect(await getDb().task.count({ where: { ownerId: user.id, clientRequestId: input.clientRequestId } })).toBe(1);
  });

  it("after its chat was deleted is still answered with its task; a new request there is a 404", async () => {
    const conversationId = await createConversationFor(user);
    const input = {
      ownerId: user.id,
      conversationId,
      title: "Then deleted",
      prompt: "research deletion",
      clientRequestId: randomUUID(),
    };
    const first = await startTask(input);
    await getDb().conversation.update({ where: { id: conversationId }, data: { deletedAt: new Date() } });
    expect(await startTask(input)).toEqual({ task: expect.objectContaining({ id: first.task.id }), created: false });
    await expect(startTask({ ...input, clientRequestId: randomUUID() })).rejects.toMatchObject({ code: "not_found" });
  });
});
