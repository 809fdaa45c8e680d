import { describe, expect, it } from "vitest";
import { randomUUID } from "node:crypto";
import { getDb } from "@/lib/db/client";
import { db, transaction } from "@/lib/db/kysely";
import { sql } from "kysely";
import type { MessageKind } from "@/lib/contract/shapes";
import { createConversationFor, signUp, type TestUser } from "@/tests/helpers";
import { appendMessage } from "./append-message";
import { markRead } from "./mark-read";

// Unread counts task moments: what one device shows is what the stored count says,
// and the feed carries that count to every other device.

async function add(
  user: TestUser,
  conversationId: string,
  kind: MessageKind,
  extra: { taskId?: string; runId?: string; meta?: object; hidden?: boolean } = {},
) {
  return transaction((tx) => appendMessage(tx, { conversationId, ownerId: user.id, kind, content: kind, ...extra }));
}

async function task(
  user: TestUser,
  conversationId: string,
  delivery: { mode: "none" | "at"; dueAt?: Date } = { mode: "none" },
) {
  const row = await getDb().task.create({
    data: {
      ownerId: user.id,
      conversationId,
      originRunId: randomUUID(),
      title: "Lighthouses",
      prompt: "p",
      driver: "research",
      clientRequestId: randomUUID(),
      status: "running",
      deliveryMode: delivery.mode,
      dueAt: delivery.dueAt ?? null,
    },
  });
  return row.id;
}

async function narrationRun(user: TestUser, conversationId: string, taskId: string) {
  const run = await getDb().run.create({
    data: {
      ownerId: user.id,
      conversationId,
      kind: "notification",
      taskId,
      idempotencyKey: randomUUID(),
      status: "running",
    },
  });
  return run.id;
}

const unread = async (id: string) => (await getDb().conversation.findUniqueOrThrow({ where: { id } })).unreadCount;

/** The unread counts the feed announced for this conversation, in order. */
async function announced(user: TestUser, conversationId: string): Promise<number[]> {
  const rows = await getDb().event.findMany({
    where: { ownerId: user.id, conversationId, type: "conversation.updated" },
    orderBy: { seq: "asc" },
  });
  return rows.map((r) => (r.payload as { conversation: { unread: number } }).conversation.unread);
}

describe("unread moments", () => {
  it("a finished task with its body, terminal line, notice and narrating reply is one unread; a plain reply is another", async () => {
    const u = await signUp("Moments");
    const conv = await createConversationFor(u);
    await add(u, conv, "user");
    const t = await task(u, conv);
    await add(u, conv, "progress", { taskId: t });
    await add(u, conv, "body", { taskId: t, meta: { partial: false, version: 1, title: "Lighthouses" } });
    await add(u, conv, "terminal", { taskId: t, meta: { status: "succeeded" } });
    await add(u, conv, "notice", { taskId: t });
    const run = await narrationRun(u, conv, t);
    await add(u, conv, "user", { runId: run, hidden: true, taskId: t });
    await add(u, conv, "assistant", { runId: run });
    expect(await unread(conv)).toBe(1);
    const reply = await add(u, conv, "assistant");
    expect(await unread(conv)).toBe(2);
    // Each new moment was announced with the stored count, nothing else.
    expect(await announced(u, conv)).toEqual([1, 2]);

    // A recount agrees with what was counted along the way, and reading moves it.
    expect((await markRead(u.id, conv, reply.seq - 1)).unread).toBe(1);
    expect((await markRead(u.id, conv, reply.seq)).unread).toBe(0);

    // After reading, the same task saying something new is a new moment.
    await add(u, conv, "notice", { taskId: t });
    await add(u, conv, "body", { taskId: t, meta: { partial: false, version: 2, title: "Lighthouses" } });
    expect(await unread(conv)).toBe(1);
  });

  it("a result promised at a moment is not unread before it; the due notice is the one signal; a failure is said at once", async () => {
    const u = await signUp("Promised");
    const conv = await createConversationFor(u);
    await add(u, conv, "user");
    const t = await task(u, conv, { mode: "at", dueAt: new Date(Date.now() + 3_600_000) });
    await add(u, conv, "body", { taskId: t, meta: { partial: false, version: 1, title: "Lighthouses" } });
    await add(u, conv, "terminal", { taskId: t, meta: { status: "succeeded" } });
    const run = await narrationRun(u, conv, t);
    const early = await add(u, conv, "assistant", { runId: run });
    expect(await unread(conv)).toBe(0);
    expect(await announced(u, conv)).toEqual([]);
    // Reading meanwhile (the recount) holds them back too.
    expect((await markRead(u.id, conv, 2)).unread).toBe(0);
    void early;

    // The promised moment comes: those messages were written before it, the notice at it.
    await db()
      .updateTable("message")
      .set({ createdAt: sql<Date>`"createdAt" - interval '2 hours'` })
      .where("conversationId", "=", conv)
      .execute();
    await db()
      .updateTable("task")
      .set({ dueAt: sql<Date>`now() - interval '1 hour'` })
      .where("id", "=", t)
      .execute();
    const due = await add(u, conv, "notice", { taskId: t });
    expect(await unread(conv)).toBe(1);
    expect(await announced(u, conv)).toEqual([0, 1]); // the read, then the due notice
    expect((await markRead(u.id, conv, due.seq - 1)).unread).toBe(1);

    const failing = await task(u, conv, { mode: "at", dueAt: new Date(Date.now() + 3_600_000) });
    await add(u, conv, "terminal", { taskId: failing, meta: { status: "failed" } });
    await add(u, conv, "notice", { taskId: failing });
    expect(await unread(conv)).toBe(2);
  });
});
