import { afterAll, beforeEach, describe, expect, it } from "vitest";
import { randomUUID } from "node:crypto";
import { getDb } from "@/lib/db/client";
import { db } from "@/lib/db/kysely";
import { claimExecution } from "@/lib/tasks/sql";
import { claimCancels } from "@/lib/tasks/cancel-sql";
import { claimRuns } from "@/lib/runs/sql";
import { claimNotificationLeases } from "@/lib/notify/sql";
import * as tasksRoute from "@/app/api/tasks/route";
import * as messagesRoute from "@/app/api/conversations/[id]/messages/route";
import {
  call,
  createConversationFor,
  signUp,
  startWorkerProcess,
  stopWorkers,
  waitFor,
  type TestUser,
  type WorkerProc,
} from "@/tests/helpers";

// Rows left by earlier files (no worker ran them) would compete for the claims
// measured here: finish them first so each test sees only its own accounts.
beforeEach(async () => {
  await db().updateTable("run").set({ status: "cancelled" }).where("status", "in", ["queued", "running"]).execute();
  await db()
    .updateTable("task")
    .set({
      status: "cancelled",
      notificationStatus: "none",
      leaseToken: null,
      leaseExpiresAt: null,
      cancelLeaseToken: null,
      notifyLeaseToken: null,
    })
    .where((eb) =>
      eb.or([
        eb("status", "not in", ["succeeded", "failed", "cancelled"]),
        eb("notificationStatus", "in", ["pending", "claimed", "dispatched", "retry"]),
      ]),
    )
    .execute();
});

async function tasksFor(user: TestUser, n: number, ageSeconds: number) {
  const conv = await createConversationFor(user);
  const ids: string[] = [];
  for (let i = 0; i < n; i++) {
    const t = await getDb().task.create({
      data: {
        ownerId: user.id,
        conversationId: conv,
        title: `t${i}`,
        prompt: "p",
        status: "queued",
        remoteRef: `research:${randomUUID()}`,
        // Older rows first in the loop's own order: the deep backlog is also the oldest.
        nextRunAt: new Date(Date.now() - (ageSeconds - i) * 1000),
      },
    });
    ids.push(t.id);
  }
  return ids;
}

const owners = async (ids: string[]) =>
  (await getDb().task.findMany({ where: { id: { in: ids } }, select: { ownerId: true } })).map((t) => t.ownerId);

describe("fair claims across accounts", () => {
  it("execution: a newcomer goes ahead of a deep, older backlog; no account holds more than its slots", async () => {
    const a = await signUp("FairA");
    const b = await signUp("FairB");
    await tasksFor(a, 20, 100);
    const [bTask] = await tasksFor(b, 1, 1);
    const first = await claimExecution("w1", 4);
    expect(first.map((t) => t.id)).toContain(bTask);
    expect(first.filter((t) => t.ownerId === a.id)).toHaveLength(3);
    // A already holds its 3 slots: a second worker's claim gets nothing of A's.
    const second = await claimExecution("w2", 4);
    expect(second).toHaveLength(0);
  });

  it("execution: a backlog deeper than the ranking window never keeps a newcomer out past the deep account's slots", async () => {
    const a = await signUp("DeepA");
    const b = await signUp("DeepB");
    const conv = await createConversationFor(a);
    // Older than the window ranks (fair-claim-sql.ts ranks a window of due rows, not all of them).
    await getDb().task.createMany({
      data: Array.from({ length: 300 }, (_, i) => ({
        ownerId: a.id,
        conversationId: conv,
        title: `deep${i}`,
        prompt: "p",
        status: "queued",
        remoteRef: `research:${randomUUID()}`,
        createdAt: new Date(Date.now() - (1000 - i) * 1000),
        nextRunAt: new Date(Date.now() - 1000),
      })),
    });
    const [bTask] = await tasksFor(b, 1, 1);
    const claimed: string[] = [];
    // One row per claim, the way a loop with one free slot claims: A may take its 3 slots, then B must come.
    for (let i = 0; i < 4 && !claimed.includes(bTask); i++)
      claimed.push(...(await claimExecution(`w${i}`, 1)).map((t) => t.id));
    expect(claimed).toContain(bTask);
    expect((await owners(claimed)).filter((o) => o === a.id).length).toBeLessThanOrEqual(3);
  });

  it("execution: with both accounts holding leases, free slots go to the one holding fewer", async () => {
    process.env.HERALD_LIMIT_SLOTS_PER_LOOP = "10";
    try {
      const a = await signUp("FairC");
      const b = await signUp("FairD");
      await tasksFor(a, 10, 100);
      await tasksFor(b, 10, 50);
      const first = await claimExecution("w1", 4);
      // Round robin from the start: two each, not four of the oldest account.
      const o = await owners(first.map((t) => t.id));
      expect(o.filter((x) => x === a.id)).toHaveLength(2);
      expect(o.filter((x) => x === b.id)).toHaveLength(2);
    } finally {
      delete process.env.HERALD_LIMIT_SLOTS_PER_LOOP;
    }
  });

  it("runs: one account's many queued turns do not keep another account's turn waiting", async () => {
    const a = await signUp("FairRunsA");
    const b = await signUp("FairRunsB");
    const db = getDb();
    for (let i = 0; i < 6; i++) {
      const conv = await createConversationFor(a);
      await db.run.create({
        data: {
          ownerId: a.id,
          conversationId: conv,
          idempotencyKey: randomUUID(),
          createdAt: new Date(Date.now() - 60_000 + i),
        },
      });
    }
    const convB = await createConversationFor(b);
    const bRun = await db.run.create({ data: { ownerId: b.id, conversationId: convB, idempotencyKey: randomUUID() } });
    const claimed = await claimRuns("w1", 2);
    expect(claimed.map((r) => r.id)).toContain(bRun.id);
    const more = await claimRuns("w1", 10);
    expect(more.every((r) => r.ownerId === a.id)).toBe(true);
    expect(more).toHaveLength(2); // A's 3 slots: 1 from the first claim + 2
  });

  it("cancels and notifications are fair too", async () => {
    const a = await signUp("FairNotifyA");
    const b = await signUp("FairNotifyB");
    const aIds = await tasksFor(a, 8, 100);
    const [bId] = await tasksFor(b, 1, 1);
    const db = getDb();
    await db.task.updateMany({
      where: { id: { in: [...aIds, bId] } },
      data: {
        cancelRequestedAt: new Date(),
        nextCancelAt: new Date(Date.now() - 1000),
        notificationStatus: "pending",
        eventVersion: 1,
      },
    });
    const cancels = await claimCancels("w1", 2);
    expect(cancels.map((t) => t.id)).toContain(bId);
    const notes = await claimNotificationLeases("w1", 2, 10_000);
    expect(notes.map((f) => f.id)).toContain(bId);
  });
});

const started: WorkerProc[] = [];
afterAll(() => stopWorkers(...started));

describe("no starvation with a real worker", () => {
  it("while one account is at its limits with long tasks, another account's task finishes and its turn is answered", async () => {
    const hog = await signUp("Hog");
    const other = await signUp("Other");
    const hogConvs = await Promise.all(Array.from({ length: 10 }, () => createConversationFor(hog)));
    // The longest pacing there is: every step waits the capped maximum.
    for (const conv of hogConvs) {
      const r = await call(tasksRoute.POST, {
        user: hog,
        body: {
          conversationId: conv,
          title: "slow",
          prompt: "p",
          clientRequestId: randomUUID(),
          options: { simulate: { steps: 50, stepMs: 3_600_000 } },
        },
      });
      expect(r.status).toBe(202);
    }
    const refused = await call(tasksRoute.POST, {
      user: hog,
      body: { conversationId: hogConvs[0], title: "one more", prompt: "p", clientRequestId: randomUUID() },
    });
    expect(refused.status).toBe(429);
    for (const conv of hogConvs) {
      const r = await call(messagesRoute.POST, {
        user: hog,
        params: { id: conv },
        body: { content: "keep talking", clientMessageId: randomUUID() },
      });
      expect(r.status).toBe(202);
    }
    const w = startWorkerProcess({ HERALD_WORKER_CONCURRENCY: "4" });
    started.push(w);
    // Let the hog's tasks be claimed first: each plans, then waits without a slot.
    const hogTasks = (await getDb().task.findMany({ where: { ownerId: hog.id }, select: { id: true } })).map(
      (t) => t.id,
    );
    await waitFor(
      async () => (await getDb().taskStep.count({ where: { taskId: { in: hogTasks } } })) >= 4,
      60_000,
      "hog tasks planned",
    ).catch((err) => {
      throw new Error(`${err}\nworker output:\n${w.output()}`);
    });

    const conv = await createConversationFor(other);
    const t0 = Date.now();
    const task = await call(tasksRoute.POST, {
      user: other,
      body: {
        conversationId: conv,
        title: "quick",
        prompt: "p",
        clientRequestId: randomUUID(),
        options: { simulate: { steps: 1, stepMs: 0 } },
      },
    });
    expect(task.status).toBe(202);
    const msg = await call(messagesRoute.POST, {
      user: other,
      params: { id: conv },
      body: { content: "hello?", clientMessageId: randomUUID() },
    });
    expect(msg.status).toBe(202);
    await waitFor(
      async () => (await getDb().task.findUniqueOrThrow({ where: { id: task.json.task.id } })).status === "succeeded",
      15_000,
      "other account's task",
    );
    await waitFor(
      async () => (await getDb().run.findUniqueOrThrow({ where: { id: msg.json.run.id } })).status === "succeeded",
      15_000,
      "other account's turn",
    ).catch(async (err) => {
      const runs = await getDb().run.findMany({ where: { ownerId: { in: [hog.id, other.id] } } });
      throw new Error(
        `${err}\n${JSON.stringify(runs.map((r) => [r.ownerId === hog.id ? "hog" : "other", r.kind, r.status, r.attempts, r.error, r.leaseExpiresAt]))}\nworker output:\n${w.output()}`,
      );
    });
    const waited = Date.now() - t0;
    console.log(`[starvation] other account served after ${waited} ms`);
    expect(waited).toBeLessThan(15_000);
    // The hog's paced tasks hold no slot while they wait.
    const held = await getDb().task.count({
      where: { ownerId: hog.id, leaseToken: { not: null }, leaseExpiresAt: { gt: new Date() } },
    });
    expect(held).toBeLessThanOrEqual(3);
    const hogActive = await getDb().task.count({ where: { ownerId: hog.id, status: { in: ["queued", "running"] } } });
    expect(hogActive).toBe(10);
    await stopWorkers(w);
  });
});
