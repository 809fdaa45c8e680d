import { afterEach, describe, expect, it, onTestFinished } from "vitest";
import { randomUUID } from "node:crypto";
import pg from "pg";
import { databaseUrl, getDb } from "@/lib/db/client";
import { WORK_CHANNEL } from "@/lib/events/channels";
import { postMessage } from "@/lib/chat/post-message";
import { deleteConversation } from "@/lib/commands/delete-conversation";
import { ApiError } from "@/lib/errors/api-error";
import { createConversationFor, signUp, waitFor } from "@/tests/helpers";
import { statementsOf } from "@/tests/statements";

const saved = { ...process.env };
afterEach(() => {
  for (const k of Object.keys(process.env)) if (k.startsWith("HERALD_LIMIT")) delete process.env[k];
  Object.assign(process.env, saved);
});

const events = async (ownerId: string) =>
  (await getDb().event.findMany({ where: { ownerId }, orderBy: { seq: "asc" } })).map((e) => ({
    seq: Number(e.seq),
    type: e.type,
    payload: e.payload as { message?: { id: string }; run?: { id: string; status: string } },
  }));

describe("postMessage", () => {
  it("accepts a turn in six round trips: the message, its run and their events commit together, in order", async () => {
    const u = await signUp("Post trips");
    const conv = await createConversationFor(u);
    await postMessage(u.id, conv, { content: "names the chat", clientMessageId: randomUUID() });

    // The run loop hears of the turn at commit (the wake-up rides on the run.updated statement).
    const listener = new pg.Client({ connectionString: databaseUrl() });
    await listener.connect();
    const woken: string[] = [];
    listener.on("notification", (n) => n.channel === WORK_CHANNEL && woken.push(n.payload ?? ""));
    onTestFinished(() => listener.end());
    await listener.query(`LISTEN "${WORK_CHANNEL}"`);
    const { result, statements } = await statementsOf(() =>
      postMessage(u.id, conv, { content: "second", clientMessageId: randomUUID() }),
    );
    await waitFor(async () => woken.includes("runs") || null, 10_000, "the run loop woken");
    // BEGIN, seq bump + insert, message.created, quota counts + run insert, run.updated + wake-up, COMMIT.
    expect(statements, statements.join("\n")).toHaveLength(6);
    expect(result.created).toBe(true);
    expect(result.message.seq).toBe(2);
    expect(result.run.status).toBe("queued");

    const run = await getDb().run.findUniqueOrThrow({ where: { id: result.run.id } });
    expect(run).toMatchObject({
      ownerId: u.id,
      conversationId: conv,
      kind: "chat",
      status: "queued",
      triggerMessageId: result.message.id,
      attempts: 0,
    });
    expect(run.idempotencyKey).toBe(`chat:${result.message.id}`);
    // The run's moment is its insert, after the message's transaction began.
    expect(run.createdAt.getTime()).toBeGreaterThanOrEqual(new Date(result.message.createdAt).getTime());

    // Gap-free account seqs; each turn's message.created comes before its run.updated.
    const log = await events(u.id);
    expect(log.map((e) => e.seq)).toEqual(log.map((_, i) => i + 1));
    const created = log.findIndex((e) => e.type === "message.created" && e.payload.message?.id === result.message.id);
    const queued = log.findIndex((e) => e.type === "run.updated" && e.payload.run?.id === result.run.id);
    expect(created).toBeGreaterThanOrEqual(0);
    expect(queued).toBe(created + 1);
    expect(log[queued].payload.run?.status).toBe("queued");
  });

  it("names an untitled chat from its first message, once", async () => {
    const u = await signUp("Post title");
    const conv = await createConversationFor(u);
    const { statements } = await statementsOf(() =>
      postMessage(u.id, conv, { content: "plan a trip to lisbon", clientMessageId: randomUUID() }),
    );
    // The rename and its event: two more than a later turn.
    expect(statements).toHaveLength(8);
    await postMessage(u.id, conv, { content: "and porto", clientMessageId: randomUUID() });
    const row = await getDb().conversation.findUniqueOrThrow({ where: { id: conv } });
    expect(row).toMatchObject({ titleSource: "message", messageSeq: 2 });
    expect(row.title).toMatch(/^Plan a trip to lisbon/);
    expect((await events(u.id)).filter((e) => e.type === "conversation.updated")).toHaveLength(1);
  });

  it("a resubmitted clientMessageId answers the first result — again, concurrently, after the chat was deleted — and spends no seq", async () => {
    const u = await signUp("Post again");
    const conv = await createConversationFor(u);
    const id = randomUUID();
    const first = await postMessage(u.id, conv, { content: "once", clientMessageId: id });
    const again = await Promise.all(
      [1, 2, 3].map(() => postMessage(u.id, conv, { content: "once", clientMessageId: id })),
    );
    for (const r of again) expect(r).toEqual({ ...first, created: false });
    const next = await postMessage(u.id, conv, { content: "twice", clientMessageId: randomUUID() });
    expect(next.message.seq).toBe(first.message.seq + 1);
    expect(await getDb().run.count({ where: { conversationId: conv } })).toBe(2);
    const seqs = (await events(u.id)).map((e) => e.seq);
    expect(seqs).toEqual(seqs.map((_, i) => i + 1));

    // Another conversation may not reuse it.
    const other = await createConversationFor(u);
    await expect(postMessage(u.id, other, { content: "once", clientMessageId: id })).rejects.toMatchObject({
      code: "conflict",
      field: "clientMessageId",
    });
    expect(await getDb().message.count({ where: { conversationId: other } })).toBe(0);

    await deleteConversation(u.id, conv);
    const late = await postMessage(u.id, conv, { content: "once", clientMessageId: id });
    expect(late).toMatchObject({
      created: false,
      message: first.message,
      run: { id: first.run.id, status: "cancelled" },
    });
    await expect(postMessage(u.id, conv, { content: "new", clientMessageId: randomUUID() })).rejects.toBeInstanceOf(
      ApiError,
    );
  });

  it("turns of one conversation queue in the order of their messages, however the posts race", async () => {
    const u = await signUp("Post order");
    const conv = await createConversationFor(u);
    await Promise.all(
      Array.from({ length: 8 }, (_, i) =>
        postMessage(u.id, conv, { content: `turn ${i}`, clientMessageId: randomUUID() }),
      ),
    );
    const runs = await getDb().run.findMany({
      where: { conversationId: conv },
      orderBy: [{ createdAt: "asc" }, { id: "asc" }],
    });
    const messages = await getDb().message.findMany({ where: { conversationId: conv }, orderBy: { seq: "asc" } });
    expect(runs.map((r) => r.triggerMessageId)).toEqual(messages.map((m) => m.id));
  });

  it("concurrent posts of one account across chats never pass the queued-turns limit, and a refused turn leaves nothing", async () => {
    process.env.HERALD_LIMIT_QUEUED_TURNS = "4";
    const u = await signUp("Post quota");
    const convs = await Promise.all(Array.from({ length: 9 }, () => createConversationFor(u)));
    const results = await Promise.allSettled(
      convs.map((c) => postMessage(u.id, c, { content: "hi", clientMessageId: randomUUID() })),
    );
    const refused = results
      .filter((r) => r.status === "rejected")
      .map((r) => (r as PromiseRejectedResult).reason as ApiError);
    expect(results.filter((r) => r.status === "fulfilled")).toHaveLength(4);
    for (const e of refused) expect(e).toMatchObject({ code: "quota_exceeded", status: 429 });
    expect(await getDb().message.count({ where: { ownerId: u.id } })).toBe(4);
    expect(await getDb().run.count({ where: { ownerId: u.id } })).toBe(4);
    const seqs = (await events(u.id)).map((e) => e.seq);
    expect(seqs).toEqual(seqs.map((_, i) => i + 1));
  });
});
