import { beforeEach, describe, expect, it } from "vitest";
import { randomUUID } from "node:crypto";
import { getDb } from "@/lib/db/client";
import { transaction } from "@/lib/db/kysely";
import { transactionWithEvents } from "@/lib/events/emit";
import type { Prisma, Task } from "@/lib/db/generated/client.ts";
import { createConversationFor, waitFor, type TestUser } from "@/tests/helpers";
import { recordEventAndAnnounce } from "./event";
import { syncNotices } from "@/lib/delivery/sync-notices";
import { claimNotifications, narrationKey, NARRATION_MARKER, notifyOne, type ClaimedNotification } from "./deliver";
import { notifyLoop } from "./loop";
import { insertNotificationRun } from "@/lib/runs/sql";
import { Loop } from "@/lib/fleet/loop";
import { MAX_NOTIFICATION_ATTEMPTS } from "./state";

// The tests drive the notify loop's claims by hand: this file's database is its own (tests/file-db.ts), so no other
// file's worker can claim these rows.

beforeEach(() => {
  process.env.HERALD_NOTIFY_INTERVAL_MS = "50";
  process.env.HERALD_NOTIFY_MAX_BACKOFF_MS = "200";
  delete process.env.HERALD_NARRATION;
});

async function newUser(): Promise<TestUser> {
  const id = randomUUID();
  const email = `notify-${id.slice(0, 8)}@example.test`;
  await getDb().user.create({ data: { id, name: "Notify", email } });
  return { id, email, cookie: "" };
}

async function setup(data: Partial<Prisma.TaskUncheckedCreateInput> = {}) {
  const user = await newUser();
  const conversationId = await createConversationFor(user, "Notify test");
  const task = await getDb().task.create({
    data: {
      ownerId: user.id,
      conversationId,
      title: "Portfolio risk",
      prompt: "research",
      status: "succeeded",
      completedAt: new Date(),
      ...data,
    },
  });
  return { user, conversationId, task };
}

// As the product's writers do (terminal(), the due loop): the notices from the committed facts, then the event.
const record = (taskId: string) =>
  transactionWithEvents(async (tx) => {
    await syncNotices(tx, taskId);
    return recordEventAndAnnounce(tx, taskId);
  });
const taskOf = (id: string) => getDb().task.findUniqueOrThrow({ where: { id } });

async function claim(taskId: string, worker = "worker-a", leaseMs?: number): Promise<ClaimedNotification> {
  const rows = await waitFor(
    async () => {
      const r = await claimNotifications(worker, 4, { onlyTaskIds: [taskId], leaseMs });
      return r.length ? r : null;
    },
    10_000,
    `claim of ${taskId} by ${worker}`,
  );
  expect(rows).toHaveLength(1);
  return rows[0];
}

const claimNow = (taskId: string, worker = "worker-a") => claimNotifications(worker, 4, { onlyTaskIds: [taskId] });

async function counts(taskId: string) {
  const db = getDb();
  return {
    notices: await db.notice.count({ where: { taskId } }),
    noticeMessages: await db.message.count({ where: { taskId, kind: "notice" } }),
    runs: await db.run.count({ where: { taskId, kind: "notification" } }),
    prompts: await db.message.count({ where: { taskId, hidden: true } }),
  };
}

async function finishRun(runId: string, status: "succeeded" | "failed" | "cancelled", error: string | null = null) {
  await getDb().run.update({ where: { id: runId }, data: { status, error, finishedAt: new Date() } });
}

/** Drives one narration attempt: claim → T7, then the run fails → claim → T15. */
async function failOneAttempt(taskId: string): Promise<string> {
  expect(await notifyOne(await claim(taskId))).toBe("T7");
  const t = await taskOf(taskId);
  await finishRun(t.notificationRunId!, "failed", "model unavailable");
  expect(await notifyOne(await claim(taskId))).toBe("T15");
  return t.notificationRunId!;
}

describe("recordEventAndAnnounce", () => {
  it("records a terminal task once; an unchanged event records nothing", async () => {
    const { task, user } = await setup();
    expect(await record(task.id)).toBe(true);
    const t = await taskOf(task.id);
    expect(t).toMatchObject({ eventVersion: 1, notifiedVersion: 0, notificationStatus: "pending" });
    expect(t.eventFingerprint).toMatch(/^[0-9a-f]{64}$/);
    expect(t.nextNotificationAt).not.toBeNull();
    expect(await record(task.id)).toBe(false);
    expect((await taskOf(task.id)).eventVersion).toBe(1);
    // Each call announces the row (the caller's change); the event itself was recorded once.
    const events = await getDb().event.findMany({ where: { ownerId: user.id, type: "task.updated", taskId: task.id } });
    expect(
      events.map((e) => (e.payload as { task: { notification: { status: string } } }).task.notification.status),
    ).toEqual(["pending", "pending"]);
  });

  it("a running task has no event", async () => {
    const { task } = await setup({ status: "running", completedAt: null });
    expect(await record(task.id)).toBe(false);
    expect((await taskOf(task.id)).notificationStatus).toBe("none");
  });
});

describe("delivery", () => {
  it("exactly one notice and one narration run even when notifyOne runs twice concurrently", async () => {
    const { task, user, conversationId } = await setup({ latestPublicationId: null });
    await record(task.id);
    const row = await claim(task.id);
    expect(row.notificationStatus).toBe("claimed");
    expect(row.dispatchVersion).toBe(1);
    expect(row.dispatchEvent).toMatchObject({ taskId: task.id, status: "succeeded", title: "Portfolio risk" });

    const results = await Promise.all([notifyOne(row), notifyOne(row)]);
    expect(results.sort()).toEqual(["T7", "lost"]);
    expect(await counts(task.id)).toEqual({ notices: 1, noticeMessages: 1, runs: 1, prompts: 1 });

    const t = await taskOf(task.id);
    expect(t).toMatchObject({ notificationStatus: "dispatched", notifyLeaseToken: null });
    const run = await getDb().run.findUniqueOrThrow({ where: { id: t.notificationRunId! } });
    expect(run).toMatchObject({
      kind: "notification",
      status: "queued",
      ownerId: user.id,
      conversationId,
      taskId: task.id,
    });
    expect(run.idempotencyKey).toBe(narrationKey(task.id, 1, 0));

    // The hidden prompt belongs to the run and is its trigger; the notice is host text.
    const prompt = await getDb().message.findFirstOrThrow({ where: { taskId: task.id, hidden: true } });
    expect(prompt).toMatchObject({ kind: "user", runId: run.id });
    expect(run.triggerMessageId).toBe(prompt.id);
    expect(prompt.content.startsWith(`${NARRATION_MARKER}\n`)).toBe(true);
    expect(prompt.content).toContain("BEGIN UNTRUSTED DATA");
    const notice = await getDb().notice.findFirstOrThrow({ where: { taskId: task.id } });
    // Terminal notices are lib/delivery's, written from the committed facts with the terminal status.
    expect(notice).toMatchObject({ key: "final", outcome: "done" });
    const noticeMsg = await getDb().message.findFirstOrThrow({ where: { taskId: task.id, kind: "notice" } });
    expect(noticeMsg).toMatchObject({ hidden: false, content: notice.text });
    expect(noticeMsg.meta).toMatchObject({ outcome: "done", noticeKey: "final", taskStatus: "succeeded" });

    const feed = await getDb().event.findMany({ where: { ownerId: user.id }, orderBy: { seq: "asc" } });
    const types = feed.map((e) => e.type);
    expect(types.filter((x) => x === "notice.created")).toHaveLength(1);
    expect(types).toContain("run.updated");
    // Hidden prompts are never announced.
    expect(types.filter((x) => x === "message.created")).toHaveLength(1);
    const created = feed.find((e) => e.type === "notice.created")!.payload as { notice: Record<string, unknown> };
    expect(Object.keys(created.notice).sort()).toEqual([
      "conversationId",
      "createdAt",
      "id",
      "key",
      "outcome",
      "publicationId",
      "taskId",
      "text",
    ]);

    // T12 → T13: the run decides delivered.
    expect(await notifyOne(await claim(task.id))).toBe("T12");
    await finishRun(run.id, "succeeded");
    expect(await notifyOne(await claim(task.id))).toBe("T13");
    expect(await taskOf(task.id)).toMatchObject({
      notificationStatus: "delivered",
      notifiedVersion: 1,
      notificationAttempts: 0,
      notificationRunId: run.id,
    });
    expect(await counts(task.id)).toEqual({ notices: 1, noticeMessages: 1, runs: 1, prompts: 1 });
    expect(await claimNow(task.id)).toEqual([]);
  });

  it("a finished narration run makes the dispatched row due at once", async () => {
    process.env.HERALD_NOTIFY_INTERVAL_MS = "600000";
    const { task } = await setup();
    await record(task.id);
    expect(await notifyOne(await claim(task.id))).toBe("T7");
    expect(await claimNow(task.id)).toEqual([]);
    await finishRun((await taskOf(task.id)).notificationRunId!, "succeeded");
    const rows = await claimNow(task.id);
    expect(rows).toHaveLength(1);
    expect(await notifyOne(rows[0])).toBe("T13");
  });

  it("a crashed worker's claim expires, another worker delivers once, and the stale worker is fenced", async () => {
    const { task } = await setup({ status: "failed", error: "remote timed out" });
    await record(task.id);
    const stale = await claim(task.id, "worker-crashed", 300);
    // Live lease: nobody else gets it.
    expect(await claimNow(task.id, "worker-b")).toEqual([]);
    const rescued = await claim(task.id, "worker-b");
    expect(rescued.notifyLeaseToken).not.toBe(stale.notifyLeaseToken);
    expect(rescued.notificationStatus).toBe("claimed");

    expect(await notifyOne(stale)).toBe("lost");
    expect(await notifyOne(rescued)).toBe("T7");
    expect(await notifyOne(stale)).toBe("lost");
    expect(await counts(task.id)).toEqual({ notices: 1, noticeMessages: 1, runs: 1, prompts: 1 });
    const notice = await getDb().notice.findFirstOrThrow({ where: { taskId: task.id } });
    expect(notice).toMatchObject({ key: "failed" });
    expect(notice.text).toContain("remote timed out");
  });

  it("two workers claiming at once get disjoint rows", async () => {
    const a = await setup();
    const b = await setup();
    await record(a.task.id);
    await record(b.task.id);
    const ids = [a.task.id, b.task.id];
    const [x, y] = await Promise.all([
      claimNotifications("w1", 4, { onlyTaskIds: ids }),
      claimNotifications("w2", 4, { onlyTaskIds: ids }),
    ]);
    expect([...x, ...y].map((r) => r.id).sort()).toEqual([...ids].sort());
    expect(x.filter((r) => y.some((s) => s.id === r.id))).toEqual([]);
  });

  it("the idempotency key is UNIQUE: a second create returns the existing run", async () => {
    const { task, user, conversationId } = await setup();
    const key = narrationKey(task.id, 1, 0);
    const make = () =>
      transaction((tx) =>
        insertNotificationRun(tx, {
          id: randomUUID(),
          ownerId: user.id,
          conversationId,
          taskId: task.id,
          idempotencyKey: key,
        }),
      );
    const [p, q] = await Promise.all([make(), make()]);
    expect(p.run.id).toBe(q.run.id);
    expect([p.created, q.created].sort()).toEqual([false, true]);
    expect(await getDb().run.count({ where: { idempotencyKey: key } })).toBe(1);

    // Delivery finds the run already admitted under its key and reuses it.
    await record(task.id);
    expect(await notifyOne(await claim(task.id))).toBe("T7");
    expect((await taskOf(task.id)).notificationRunId).toBe(p.run.id);
    expect(await counts(task.id)).toMatchObject({ runs: 1, prompts: 0, notices: 1 });
  });

  it("a busy conversation coalesces without counting, then narrates only the latest event", async () => {
    const { task, user, conversationId } = await setup({
      status: "input_required",
      completedAt: null,
      inputRequest: { question: "Which index?" },
    });
    const chat = await getDb().run.create({
      data: {
        ownerId: user.id,
        conversationId,
        kind: "chat",
        status: "running",
        idempotencyKey: `chat:${randomUUID()}`,
      },
    });
    await record(task.id);
    expect(await notifyOne(await claim(task.id))).toBe("T8");
    let t = await taskOf(task.id);
    expect(t).toMatchObject({
      notificationStatus: "pending",
      notificationAttempts: 0,
      dispatchVersion: 1,
      dispatchAttempt: 0,
    });
    expect(t.dispatchEvent).toBeNull();
    // The host notice does not wait for the conversation.
    expect(await getDb().notice.findMany({ where: { taskId: task.id }, select: { key: true } })).toEqual([
      { key: "input:1" },
    ]);
    const inputNotice = await getDb().notice.findFirstOrThrow({ where: { taskId: task.id } });
    expect(inputNotice).toMatchObject({ outcome: "input", text: '"Portfolio risk" needs your input: Which index?' });
    const inputMsg = await getDb().message.findFirstOrThrow({ where: { taskId: task.id, kind: "notice" } });
    expect(inputMsg.meta).toMatchObject({
      noticeId: inputNotice.id,
      noticeKey: "input:1",
      outcome: "input",
      taskStatus: "input_required",
    });
    expect(await counts(task.id)).toMatchObject({ runs: 0 });

    // Still busy: again uncounted.
    expect(await notifyOne(await claim(task.id))).toBe("T8");
    expect((await taskOf(task.id)).notificationAttempts).toBe(0);

    // The task moves on while waiting; the next claim rebuilds from the latest event.
    await getDb().task.update({
      where: { id: task.id },
      data: { status: "succeeded", inputRequest: undefined, completedAt: new Date() },
    });
    expect(await record(task.id)).toBe(true);
    await finishRun(chat.id, "succeeded");
    const row = await claim(task.id);
    expect(row).toMatchObject({ dispatchVersion: 2, dispatchAttempt: 0, notificationAttempts: 0 });
    expect(row.dispatchEvent).toMatchObject({ status: "succeeded" });
    expect(await notifyOne(row)).toBe("T7");
    t = await taskOf(task.id);
    const runs = await getDb().run.findMany({ where: { taskId: task.id } });
    expect(runs.map((r) => r.idempotencyKey)).toEqual([narrationKey(task.id, 2, 0)]);
    const prompt = await getDb().message.findFirstOrThrow({ where: { runId: runs[0].id, hidden: true } });
    const framed = prompt.content.split("\n\n")[1];
    expect(framed).toContain('"status":"succeeded"');
    expect(framed).not.toContain("input_required");
    expect(framed).not.toContain("Which index?");
    expect(
      (await getDb().notice.findMany({ where: { taskId: task.id }, orderBy: { createdAt: "asc" } })).map((n) => n.key),
    ).toEqual(["input:1", "final"]);
  });

  it("a deleted conversation dead-letters at once, counted, with no notice of its own and no run", async () => {
    const { task, conversationId } = await setup();
    await record(task.id);
    // The terminal notice was written with the terminal status, before the conversation went.
    const written = await counts(task.id);
    expect(written).toMatchObject({ notices: 1, runs: 0 });
    const row = await claim(task.id);
    await getDb().conversation.update({ where: { id: conversationId }, data: { deletedAt: new Date() } });
    expect(await notifyOne(row)).toBe("T10");
    const t = await taskOf(task.id);
    expect(t).toMatchObject({
      notificationStatus: "dead_letter",
      notificationAttempts: 1,
      notifyLeaseToken: null,
      nextNotificationAt: null,
    });
    expect(t.notificationError).toMatch(/conversation was deleted/i);
    expect(await counts(task.id)).toEqual(written);
    expect(await claimNow(task.id)).toEqual([]);
  });

  it("five failed narration runs dead-letter the version before a sixth run exists", async () => {
    const { task } = await setup();
    await record(task.id);
    for (let i = 0; i < MAX_NOTIFICATION_ATTEMPTS; i++) await failOneAttempt(task.id);
    let t = await taskOf(task.id);
    expect(t).toMatchObject({ notificationStatus: "retry", notificationAttempts: 5, dispatchAttempt: 5 });
    const keys = (await getDb().run.findMany({ where: { taskId: task.id }, orderBy: { createdAt: "asc" } })).map(
      (r) => r.idempotencyKey,
    );
    expect(keys).toEqual([0, 1, 2, 3, 4].map((a) => narrationKey(task.id, 1, a)));

    expect(await notifyOne(await claim(task.id))).toBe("T10");
    t = await taskOf(task.id);
    expect(t).toMatchObject({ notificationStatus: "dead_letter", notificationAttempts: 5, notifiedVersion: 0 });
    expect(t.notificationError).toMatch(/stopped after 5 failed attempts: Notification run failed: model unavailable/);
    expect(await counts(task.id)).toEqual({ notices: 1, noticeMessages: 1, runs: 5, prompts: 5 });
    expect(await claimNow(task.id)).toEqual([]);
  });

  it("a newer event during a failed dispatch survives: the retry rebuilds it with a fresh budget (T4)", async () => {
    const { task } = await setup({
      status: "input_required",
      completedAt: null,
      inputRequest: { question: "Which index?" },
    });
    await record(task.id);
    for (let i = 0; i < 4; i++) await failOneAttempt(task.id);
    expect(await notifyOne(await claim(task.id))).toBe("T7");
    // While the 5th run is in flight the task moves on: only the version moves.
    const frozen = (await taskOf(task.id)).dispatchEvent;
    await getDb().task.update({
      where: { id: task.id },
      data: { status: "failed", error: "gave up", completedAt: new Date() },
    });
    expect(await record(task.id)).toBe(true);
    let t = await taskOf(task.id);
    expect(t).toMatchObject({ notificationStatus: "dispatched", eventVersion: 2, dispatchVersion: 1 });
    expect(t.dispatchEvent).toEqual(frozen);
    await finishRun(t.notificationRunId!, "failed", "model unavailable");
    expect(await notifyOne(await claim(task.id))).toBe("T15");
    expect(await taskOf(task.id)).toMatchObject({ notificationStatus: "retry", notificationAttempts: 5 });

    const row = await claim(task.id);
    expect(row).toMatchObject({
      notificationStatus: "claimed",
      dispatchVersion: 2,
      notificationAttempts: 0,
      dispatchAttempt: 0,
    });
    expect(await notifyOne(row)).toBe("T7");
    t = await taskOf(task.id);
    const run = await getDb().run.findUniqueOrThrow({ where: { id: t.notificationRunId! } });
    expect(run.idempotencyKey).toBe(narrationKey(task.id, 2, 0));
    expect((await getDb().notice.findMany({ where: { taskId: task.id } })).map((n) => n.key).sort()).toEqual([
      "failed",
      "input:1",
    ]);
  });

  it("T11 dead-lettering a dispatched version keeps the newer event", async () => {
    const { task } = await setup({
      status: "input_required",
      completedAt: null,
      inputRequest: { question: "Which index?" },
    });
    await record(task.id);
    expect(await notifyOne(await claim(task.id))).toBe("T7");
    await getDb().task.update({ where: { id: task.id }, data: { inputRequest: { question: "Which currency?" } } });
    expect(await record(task.id)).toBe(true);
    // Stand-in for five T16 failures while checking the run (the phase stays dispatched).
    await getDb().task.update({
      where: { id: task.id },
      data: { notificationAttempts: MAX_NOTIFICATION_ATTEMPTS, nextNotificationAt: new Date() },
    });
    expect(await notifyOne(await claim(task.id))).toBe("T11");
    expect(await taskOf(task.id)).toMatchObject({
      notificationStatus: "pending",
      notificationAttempts: 0,
      dispatchVersion: null,
      notificationError: null,
    });
    const row = await claim(task.id);
    expect(row.dispatchVersion).toBe(2);
    expect(row.dispatchEvent).toMatchObject({ inputRequest: { question: "Which currency?" } });
    // The dropped version's run is still queued: one run at a time per conversation.
    expect(await notifyOne(row)).toBe("T8");
    const first = await getDb().run.findFirstOrThrow({ where: { taskId: task.id } });
    await finishRun(first.id, "failed");
    expect(await notifyOne(await claim(task.id))).toBe("T7");
    expect((await taskOf(task.id)).dispatchVersion).toBe(2);
    expect((await getDb().notice.findMany({ where: { taskId: task.id } })).map((n) => n.key).sort()).toEqual([
      "input:1",
      "input:2",
    ]);
  });

  it("a dead letter is revived by a new distinct event, and only by one", async () => {
    const { task } = await setup({
      status: "input_required",
      completedAt: null,
      inputRequest: { question: "Which index?" },
    });
    await record(task.id);
    for (let i = 0; i < MAX_NOTIFICATION_ATTEMPTS; i++) await failOneAttempt(task.id);
    expect(await notifyOne(await claim(task.id))).toBe("T10");
    expect((await taskOf(task.id)).notificationStatus).toBe("dead_letter");

    // Same facts: still dead.
    await getDb().task.update({ where: { id: task.id }, data: { progressText: "still thinking" } });
    expect(await record(task.id)).toBe(false);
    expect((await taskOf(task.id)).notificationStatus).toBe("dead_letter");

    await getDb().task.update({ where: { id: task.id }, data: { status: "succeeded", completedAt: new Date() } });
    expect(await record(task.id)).toBe(true);
    expect(await taskOf(task.id)).toMatchObject({
      notificationStatus: "pending",
      eventVersion: 2,
      notificationAttempts: 0,
      notificationError: null,
    });
    expect(await notifyOne(await claim(task.id))).toBe("T7");
    const t = await taskOf(task.id);
    const run = await getDb().run.findUniqueOrThrow({ where: { id: t.notificationRunId! } });
    expect(run.idempotencyKey).toBe(narrationKey(task.id, 2, 0));
  });

  it("with narration off the version is delivered right after its notice", async () => {
    process.env.HERALD_NARRATION = "off";
    const { task } = await setup({ status: "cancelled" });
    await record(task.id);
    expect(await notifyOne(await claim(task.id))).toBe("T7n");
    expect(await taskOf(task.id)).toMatchObject({ notificationStatus: "delivered", notifiedVersion: 1 });
    // The cancel's one message is its terminal line: the notice row has no message of its own.
    expect(await counts(task.id)).toEqual({ notices: 1, noticeMessages: 0, runs: 0, prompts: 0 });
    expect(await getDb().notice.findFirstOrThrow({ where: { taskId: task.id } })).toMatchObject({ key: "cancelled" });
  });

  it("an input request answered before delivery is settled without a notice (T2x)", async () => {
    const { task } = await setup({
      status: "input_required",
      completedAt: null,
      inputRequest: { question: "Which index?" },
    });
    await record(task.id);
    await getDb().task.update({ where: { id: task.id }, data: { status: "running" } });
    expect(await record(task.id)).toBe(false);
    expect(await claimNow(task.id)).toEqual([]);
    const t: Task = await taskOf(task.id);
    expect(t).toMatchObject({
      notificationStatus: "none",
      notifiedVersion: 1,
      eventFingerprint: null,
      notifyLeaseToken: null,
    });
    expect(await counts(task.id)).toEqual({ notices: 0, noticeMessages: 0, runs: 0, prompts: 0 });
  });

  it("a stopping worker gives the claim back without counting (T17)", async () => {
    const { task } = await setup();
    await record(task.id);
    const ac = new AbortController();
    ac.abort();
    expect(await notifyOne(await claim(task.id), ac.signal)).toBe("T17");
    expect(await taskOf(task.id)).toMatchObject({
      notificationStatus: "claimed",
      notificationAttempts: 0,
      notifyLeaseToken: null,
    });
    expect(await notifyOne(await claim(task.id))).toBe("T7");
  });
});

describe("wiring", () => {
  it("notifyLoop delivers end to end when its narration run succeeds", async () => {
    const { task } = await setup();
    await record(task.id);
    const stop = new AbortController();
    const loop = new Loop({ ...notifyLoop("loop-worker"), pollMs: 50, log: () => {} }, stop.signal);
    const running = loop.start();
    try {
      const t = await waitFor(
        async () => {
          const r = await taskOf(task.id);
          return r.notificationStatus === "dispatched" ? r : null;
        },
        10_000,
        "dispatched",
      );
      await finishRun(t.notificationRunId!, "succeeded");
      await waitFor(async () => (await taskOf(task.id)).notificationStatus === "delivered", 10_000, "delivered");
      expect(await counts(task.id)).toEqual({ notices: 1, noticeMessages: 1, runs: 1, prompts: 1 });
    } finally {
      stop.abort();
      await running;
    }
  });
});
