import { afterEach, describe, expect, it } from "vitest";
import { randomUUID } from "node:crypto";
import { getDb } from "@/lib/db/client";
import * as tasksRoute from "@/app/api/tasks/route";
import * as messagesRoute from "@/app/api/conversations/[id]/messages/route";
import { call, createConversationFor, signUp, type TestUser } from "@/tests/helpers";

const saved = { ...process.env };
afterEach(() => {
  for (const k of Object.keys(process.env)) if (k.startsWith("HERALD_LIMIT")) delete process.env[k];
  Object.assign(process.env, saved);
});

const startBody = (conversationId: string, extra: object = {}) => ({
  conversationId,
  title: "quota",
  prompt: "research quotas",
  clientRequestId: randomUUID(),
  ...extra,
});

const post = (user: TestUser, conversationId: string, content = "hello") =>
  call(messagesRoute.POST, {
    user,
    params: { id: conversationId },
    body: { content, clientMessageId: randomUUID() },
  });

describe("per-account quotas", () => {
  it("active background tasks: the 11th is a 429 with Retry-After; nothing is written; another account is unaffected", async () => {
    const a = await signUp("QuotaA");
    const b = await signUp("QuotaB");
    const convA = await createConversationFor(a);
    const convB = await createConversationFor(b);
    for (let i = 0; i < 10; i++)
      expect((await call(tasksRoute.POST, { user: a, body: startBody(convA) })).status).toBe(202);
    const over = await call(tasksRoute.POST, { user: a, body: startBody(convA) });
    expect(over.status).toBe(429);
    expect(Number(over.res.headers.get("retry-after"))).toBeGreaterThan(0);
    expect(over.json.error.code).toBe("quota_exceeded");
    expect(over.json.error.message).toMatch(/background tasks/);
    expect(await getDb().task.count({ where: { ownerId: a.id } })).toBe(10);
    expect((await call(tasksRoute.POST, { user: b, body: startBody(convB) })).status).toBe(202);
    // A finished task frees its unit.
    const one = await getDb().task.findFirstOrThrow({ where: { ownerId: a.id } });
    await getDb().task.update({ where: { id: one.id }, data: { status: "succeeded", completedAt: new Date() } });
    expect((await call(tasksRoute.POST, { user: a, body: startBody(convA) })).status).toBe(202);
  });

  it("concurrent starts cannot overshoot the active limit", async () => {
    process.env.HERALD_LIMIT_ACTIVE_TASKS = "3";
    const a = await signUp("QuotaRace");
    const conv = await createConversationFor(a);
    const results = await Promise.all(
      Array.from({ length: 8 }, () => call(tasksRoute.POST, { user: a, body: startBody(conv) })),
    );
    expect(results.filter((r) => r.status === 202)).toHaveLength(3);
    expect(results.filter((r) => r.status === 429)).toHaveLength(5);
    expect(await getDb().task.count({ where: { ownerId: a.id } })).toBe(3);
  });

  it("a retried start is answered with the task it created, even with the account at its limit", async () => {
    process.env.HERALD_LIMIT_ACTIVE_TASKS = "2";
    const a = await signUp("QuotaRetry");
    const conv = await createConversationFor(a);
    const first = startBody(conv);
    const created = await call(tasksRoute.POST, { user: a, body: first });
    expect((await call(tasksRoute.POST, { user: a, body: startBody(conv) })).status).toBe(202);
    const retried = await call(tasksRoute.POST, { user: a, body: first });
    expect(retried.status).toBe(202);
    expect(retried.json.task.id).toBe(created.json.task.id);
    expect((await call(tasksRoute.POST, { user: a, body: startBody(conv) })).status).toBe(429);
    expect(await getDb().task.count({ where: { ownerId: a.id } })).toBe(2);
  });

  it("task starts per minute count finished tasks too", async () => {
    process.env.HERALD_LIMIT_TASK_STARTS_PER_MINUTE = "2";
    const a = await signUp("QuotaRate");
    const conv = await createConversationFor(a);
    for (let i = 0; i < 2; i++) {
      const r = await call(tasksRoute.POST, { user: a, body: startBody(conv) });
      await getDb().task.update({ where: { id: r.json.task.id }, data: { status: "cancelled" } });
    }
    const over = await call(tasksRoute.POST, { user: a, body: startBody(conv) });
    expect(over.status).toBe(429);
    const retry = Number(over.res.headers.get("retry-after"));
    expect(retry).toBeGreaterThan(0);
    expect(retry).toBeLessThanOrEqual(60);
  });

  it("messages per minute and queued chat turns; the refused message is not stored", async () => {
    process.env.HERALD_LIMIT_MESSAGES_PER_MINUTE = "3";
    const a = await signUp("QuotaMsg");
    const conv = await createConversationFor(a);
    for (let i = 0; i < 3; i++) expect((await post(a, conv, `m${i}`)).status).toBe(202);
    const over = await post(a, conv, "one too many");
    expect(over.status).toBe(429);
    expect(over.res.headers.get("retry-after")).toMatch(/^\d+$/);
    expect(await getDb().message.count({ where: { ownerId: a.id, kind: "user" } })).toBe(3);
    expect(await getDb().run.count({ where: { ownerId: a.id } })).toBe(3);

    delete process.env.HERALD_LIMIT_MESSAGES_PER_MINUTE;
    process.env.HERALD_LIMIT_QUEUED_TURNS = "2";
    const b = await signUp("QuotaTurns");
    const convs = await Promise.all([1, 2, 3].map(() => createConversationFor(b)));
    expect((await post(b, convs[0])).status).toBe(202);
    expect((await post(b, convs[1])).status).toBe(202);
    const waiting = await post(b, convs[2]);
    expect(waiting.status).toBe(429);
    expect(waiting.json.error.message).toMatch(/waiting for an answer/);
  });

  it("HERALD_LIMITS=off lifts every limit", async () => {
    process.env.HERALD_LIMIT_MESSAGES_PER_MINUTE = "1";
    process.env.HERALD_LIMITS = "off";
    const a = await signUp("QuotaOff");
    const conv = await createConversationFor(a);
    for (let i = 0; i < 3; i++) expect((await post(a, conv, `m${i}`)).status).toBe(202);
  });

  it("options.simulate is refused unless the operator allows it", async () => {
    const a = await signUp("QuotaSim");
    const conv = await createConversationFor(a);
    delete process.env.HERALD_ALLOW_SIMULATE;
    const r = await call(tasksRoute.POST, { user: a, body: startBody(conv, { options: { simulate: { steps: 2 } } }) });
    expect(r.status).toBe(400);
    expect(r.json.error.field).toBe("options.simulate");
    expect(await getDb().task.count({ where: { ownerId: a.id } })).toBe(0);
  });

  it("delivery.dueAt is bounded like dueInSeconds", async () => {
    const a = await signUp("QuotaDue");
    const conv = await createConversationFor(a);
    const far = new Date(Date.now() + 8 * 24 * 3600 * 1000).toISOString();
    const r = await call(tasksRoute.POST, { user: a, body: startBody(conv, { delivery: { mode: "at", dueAt: far } }) });
    expect(r.status).toBe(400);
    expect(r.json.error.field).toBe("delivery.dueAt");
    const m = await call(messagesRoute.POST, {
      user: a,
      params: { id: conv },
      body: { content: "hi", clientMessageId: randomUUID(), delivery: { mode: "by", dueAt: far } },
    });
    expect(m.status).toBe(400);
    expect(await getDb().message.count({ where: { ownerId: a.id } })).toBe(0);
  });
});
