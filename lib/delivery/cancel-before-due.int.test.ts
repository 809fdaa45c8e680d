import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { randomUUID } from "node:crypto";
import { getDb } from "@/lib/db/client";
import { db as kysely } from "@/lib/db/kysely";
import { sql } from "kysely";
import { startTask } from "@/lib/tasks/start-task";
import type { DeliveryContract } from "@/lib/contract/schemas";
import * as cancelRoute from "@/app/api/tasks/[id]/cancel/route";
import { isTerminalStatus } from "@/lib/contract/task";
import { evaluateDueTask } from "@/lib/runtime/due-loop";
import { findDue } from "./sql";
import {
  call,
  createConversationFor,
  signUp,
  startWorkerProcess,
  stopWorkers,
  waitFor,
  waitForBeat,
  type TestUser,
  type WorkerProc,
} from "@/tests/helpers";

// A timed task cancelled before its due time was judged again at that time (a second narration,
// `missed` in the sheet). Its promise ends with the cancel; the due moment must change nothing.

let w: WorkerProc;
let u: TestUser;
beforeAll(async () => {
  w = startWorkerProcess({ HERALD_POLL_MS: "300" });
  u = await signUp("CancelBeforeDue");
  await waitForBeat(w);
});
afterAll(() => stopWorkers(w));

const db = () => getDb();
const task = (id: string) => db().task.findUniqueOrThrow({ where: { id } });
/** What the conversation shows from the cancel on (a step that committed before the fence came earlier). */
const saidSinceCancel = async (conversationId: string, taskId: string) => {
  const { cancelRequestedAt } = await task(taskId);
  return db().message.findMany({
    where: { conversationId, hidden: false, createdAt: { gte: cancelRequestedAt! } },
    orderBy: { seq: "asc" },
  });
};

async function launch(title: string, simulate: { steps: number; stepMs: number }, delivery: DeliveryContract) {
  const conv = await createConversationFor(u);
  const { task: t } = await startTask({
    ownerId: u.id,
    conversationId: conv,
    title,
    prompt: "p",
    clientRequestId: randomUUID(),
    options: { simulate },
    delivery,
  });
  return { id: t.id, conv };
}

describe("a timed task cancelled before its due time", () => {
  it("at and by: one message for the cancel; at and after the due time nothing happens and nothing says missed", async () => {
    const tasks = [
      await launch("cancelled at-task", { steps: 20, stepMs: 1000 }, { mode: "at", dueInSeconds: 6 }),
      await launch(
        "cancelled by-task",
        { steps: 20, stepMs: 1000 },
        { mode: "by", dueInSeconds: 6, reportIfUnfinished: true },
      ),
    ];
    // Due a moment after both: once the due loop has evaluated it, it has passed their due times too.
    const witness = await launch("witness", { steps: 1, stepMs: 0 }, { mode: "at", dueInSeconds: 8 });

    for (const t of tasks) {
      await waitFor(async () => (await task(t.id)).status === "running", 20_000, "running");
      const res = await call(cancelRoute.POST, { user: u, method: "POST", params: { id: t.id } });
      expect(res.status).toBe(200);
    }
    for (const t of tasks) {
      const ended = await waitFor(
        async () => {
          const r = await task(t.id);
          return isTerminalStatus(r.status) && ["none", "delivered"].includes(r.notificationStatus) ? r : null;
        },
        20_000,
        "cancel landed",
      );
      expect(ended.status).toBe("cancelled");
      // The promise was closed by the cancel itself, well before the due time.
      expect(ended.dueEvaluatedAt).not.toBeNull();
      expect(ended.dueEvaluatedAt!.getTime()).toBeLessThan(ended.dueAt!.getTime());
      const said = await saidSinceCancel(t.conv, t.id);
      expect(said.map((m) => [m.kind, (m.meta as { status?: string } | null)?.status])).toEqual([
        ["terminal", "cancelled"],
      ]);
    }

    const w8 = await waitFor(
      async () => {
        const r = await task(witness.id);
        return r.dueEvaluatedAt ? r : null;
      },
      30_000,
      "the witness's due moment evaluated",
    );
    expect(w8.dueEvaluatedAt!.getTime()).toBeGreaterThanOrEqual(w8.dueAt!.getTime());
    for (const t of tasks) expect((await task(t.id)).dueAt!.getTime()).toBeLessThanOrEqual(w8.dueAt!.getTime());

    for (const t of tasks) {
      const after = await task(t.id);
      expect(after.status).toBe("cancelled");
      expect(after.deliveryOutcome).toBeNull();
      expect(after.notificationStatus).not.toBe("pending");
      const said = await saidSinceCancel(t.conv, t.id);
      expect(said).toHaveLength(1);
      expect(said[0].kind).toBe("terminal");
      const notices = await db().notice.findMany({ where: { taskId: t.id } });
      expect(notices.map((n) => [n.key, n.outcome])).toEqual([["cancelled", "cancelled"]]);
      expect(await db().run.count({ where: { conversationId: t.conv } })).toBe(0);
    }
  });

  it("a cancel still under way at the due time is not due: the due loop never picks it", async () => {
    const conv = await createConversationFor(u);
    // Built in one insert so no loop can touch it first: running, fenced by its user, its cancel lease held
    // (a remote that takes long to stop), and already past its due time.
    const id = randomUUID();
    await kysely()
      .insertInto("task")
      .values({
        id,
        ownerId: u.id,
        conversationId: conv,
        title: "slow to stop",
        prompt: "p",
        status: "running",
        deliveryMode: "at",
        dueAt: sql<Date>`now() - interval '1 second'`,
        cancelRequestedAt: sql<Date>`now() - interval '5 seconds'`,
        nextCancelAt: sql<Date>`now()`,
        cancelLeaseOwner: "test",
        cancelLeaseToken: "held-by-test",
        cancelLeaseExpiresAt: sql<Date>`now() + interval '1 hour'`,
        updatedAt: sql<Date>`now()`,
      })
      .execute();
    expect(await findDue(100, [])).not.toContain(id);
    expect(await evaluateDueTask(id)).toBe("skipped");
    const row = await task(id);
    expect(row.dueEvaluatedAt).toBeNull();
    expect(row.deliveryOutcome).toBeNull();
    expect(await db().notice.count({ where: { taskId: id } })).toBe(0);
    // Released back to the cancel loop, which ends it; the promise closes with the cancel.
    await db().task.update({ where: { id }, data: { cancelLeaseExpiresAt: new Date(0), nextCancelAt: new Date(0) } });
    const done = await waitFor(
      async () => {
        const r = await task(id);
        return r.status === "cancelled" ? r : null;
      },
      20_000,
      "the cancel loop ends it",
    );
    expect(done.deliveryOutcome).toBeNull();
    expect(done.dueEvaluatedAt).not.toBeNull();
    expect(await db().notice.findMany({ where: { taskId: id }, select: { key: true } })).toEqual([
      { key: "cancelled" },
    ]);
  });
});
