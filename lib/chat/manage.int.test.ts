import { describe, expect, it } from "vitest";
import { randomUUID } from "node:crypto";
import { getDb } from "@/lib/db/client";
import { transaction } from "@/lib/db/kysely";
import * as listRoute from "@/app/api/conversations/route";
import * as oneRoute from "@/app/api/conversations/[id]/route";
import * as readRoute from "@/app/api/conversations/[id]/read/route";
import * as searchRoute from "@/app/api/conversations/search/route";
import * as messagesRoute from "@/app/api/conversations/[id]/messages/route";
import { MAX_PINNED_CONVERSATIONS } from "@/lib/contract/schemas";
import type { PublicConversation } from "@/lib/contract/shapes";
import { call, createConversationFor, signUp, type TestUser } from "@/tests/helpers";
import { appendMessage } from "./append-message";
import { titleAfterExchange, titleFromMessage } from "./titles";
import { likePattern } from "./search";

async function add(
  user: TestUser,
  conversationId: string,
  kind: "user" | "assistant" | "body" | "progress",
  content: string,
  hidden = false,
) {
  return transaction((tx) => appendMessage(tx, { conversationId, ownerId: user.id, kind, content, hidden }));
}

const patch = (user: TestUser, id: string, body: unknown) =>
  call(oneRoute.PATCH, { user, method: "PATCH", path: `/api/conversations/${id}`, params: { id }, body });
const read = (user: TestUser, id: string, body: unknown) =>
  call(readRoute.POST, { user, path: `/api/conversations/${id}/read`, params: { id }, body });
const search = (user: TestUser, q: string) =>
  call(searchRoute.GET, { user, path: `/api/conversations/search?q=${encodeURIComponent(q)}` });
const list = async (user: TestUser) =>
  (await call(listRoute.GET, { user, path: "/api/conversations" })).json.conversations as PublicConversation[];

async function feedTypes(user: TestUser, conversationId: string): Promise<{ type: string; unread?: number }[]> {
  const rows = await getDb().event.findMany({ where: { ownerId: user.id, conversationId }, orderBy: { seq: "asc" } });
  return rows.map((r) => ({
    type: r.type,
    unread: (r.payload as { conversation?: { unread?: number } }).conversation?.unread,
  }));
}

describe("read marks", () => {
  it("counts visible replies after the mark, clears on a read or the user's own turn, and announces each move once", async () => {
    const u = await signUp("Reader");
    const conv = await createConversationFor(u);
    await add(u, conv, "user", "question");
    await add(u, conv, "assistant", "answer 1");
    await add(u, conv, "assistant", "prompt", true); // hidden: not unread
    await add(u, conv, "progress", "step 1 of 3"); // progress lines come by the dozen: not unread
    const last = await add(u, conv, "body", "report");
    let [c] = (await list(u)).filter((x) => x.id === conv);
    expect(c).toMatchObject({ unread: 2, lastReadSeq: 1, lastSeq: last.seq });

    // Read through the answer only: the report stays unread.
    const partial = await read(u, conv, { seq: 2 });
    expect(partial.status).toBe(200);
    expect(partial.json).toMatchObject({ unread: 1, lastReadSeq: 2 });
    // Never back, never past the newest message; a mark that did not move emits nothing.
    const before = (await feedTypes(u, conv)).length;
    expect((await read(u, conv, { seq: 1 })).json).toMatchObject({ lastReadSeq: 2, unread: 1 });
    expect((await feedTypes(u, conv)).length).toBe(before);
    expect((await read(u, conv, { seq: 999 })).json).toMatchObject({ lastReadSeq: last.seq, unread: 0 });
    const events = await feedTypes(u, conv);
    expect(events.slice(before)).toEqual([{ type: "conversation.updated", unread: 0 }]);

    await add(u, conv, "assistant", "more");
    [c] = (await list(u)).filter((x) => x.id === conv);
    expect(c.unread).toBe(1);
    // The user's own message means they have seen everything before it.
    await add(u, conv, "user", "thanks");
    [c] = (await list(u)).filter((x) => x.id === conv);
    expect(c).toMatchObject({ unread: 0, lastReadSeq: c.lastSeq });
  });

  it("refuses bad input naming the field, and another account's or a deleted conversation is 404", async () => {
    const u = await signUp("Reader2");
    const other = await signUp("Other");
    const conv = await createConversationFor(u);
    expect((await read(u, conv, { seq: -1 })).json.error.field).toBe("seq");
    expect((await read(u, conv, { seq: "3" })).json.error.field).toBe("seq");
    expect((await read(u, conv, {})).json.error.field).toBe("seq");
    expect((await read(other, conv, { seq: 1 })).status).toBe(404);
    expect((await read(u, randomUUID(), { seq: 1 })).status).toBe(404);
    await call(oneRoute.DELETE, {
      user: u,
      method: "DELETE",
      path: `/api/conversations/${conv}`,
      params: { id: conv },
    });
    expect((await read(u, conv, { seq: 1 })).status).toBe(404);
  });
});

describe("rename and pin", () => {
  it("renames (the user's title is kept from then on), pins first, and refuses bad input, foreign ids and a full pin list", async () => {
    const u = await signUp("Pinner");
    const other = await signUp("Stranger");
    const a = await createConversationFor(u, "A");
    const b = await createConversationFor(u, "B");
    await add(u, b, "user", "latest activity");
    const before = (await list(u)).find((c) => c.id === a)!;

    const renamed = await patch(u, a, { title: "  Battery notes  " });
    expect(renamed.status).toBe(200);
    expect(renamed.json.title).toBe("Battery notes");
    expect((await getDb().conversation.findUniqueOrThrow({ where: { id: a } })).titleSource).toBe("user");

    // A rename is not activity: b's message is newer, and a stays below it.
    expect((await list(u)).map((c) => c.id).slice(0, 2)).toEqual([b, a]);
    // Still a newer copy for browsers, which keep the newest updatedAt of each chat.
    expect(Date.parse(renamed.json.updatedAt)).toBeGreaterThan(Date.parse(before.updatedAt));
    await add(u, a, "assistant", "newer");
    expect((await list(u))[0].id).toBe(a);
    expect((await patch(u, a, { title: "Battery notes 2" })).status).toBe(200);
    expect((await list(u))[0].id).toBe(a);
    await add(u, b, "assistant", "newer");
    expect((await list(u))[0].id).toBe(b);
    expect((await patch(u, a, { pinned: true })).json.pinned).toBe(true);
    await add(u, b, "assistant", "newest");
    const order = await list(u);
    expect(order[0]).toMatchObject({ id: a, pinned: true });
    expect((await patch(u, a, { pinned: false })).json.pinned).toBe(false);

    expect((await patch(u, a, { title: "   " })).json.error.field).toBe("title");
    expect((await patch(u, a, {})).status).toBe(400);
    expect((await patch(u, a, { pinned: "yes" })).json.error.field).toBe("pinned");
    expect((await patch(u, a, { colour: "red" })).json.error.field).toBe("colour");
    expect((await patch(other, a, { title: "mine now" })).status).toBe(404);
    expect((await getDb().conversation.findUniqueOrThrow({ where: { id: a } })).title).toBe("Battery notes 2");

    const ids = await Promise.all(
      Array.from({ length: MAX_PINNED_CONVERSATIONS }, (_, i) => createConversationFor(u, `p${i}`)),
    );
    for (const id of ids) expect((await patch(u, id, { pinned: true })).status).toBe(200);
    const over = await patch(u, a, { pinned: true });
    expect(over.status).toBe(429);
    expect(over.json.error).toMatchObject({ code: "quota_exceeded", field: "pinned" });
    expect(Number(over.res.headers.get("retry-after"))).toBeGreaterThan(0);
    // Re-pinning what is already pinned is no new pin.
    expect((await patch(u, ids[0], { pinned: true })).status).toBe(200);
  });
});

describe("search", () => {
  it("finds titles and visible messages of the account only, literally, titles first", async () => {
    const u = await signUp("Searcher");
    const other = await signUp("Snoop");
    const byTitle = await createConversationFor(u, "Sodium-ion outlook");
    const byBody = await createConversationFor(u, "Something else");
    await add(u, byBody, "user", "what about sodium?");
    await add(u, byBody, "body", `${"x".repeat(300)} The SODIUM-ion market grew 40% in 2025 ${"y".repeat(300)}`);
    const hiddenOnly = await createConversationFor(u, "Quiet");
    await add(u, hiddenOnly, "assistant", "sodium in a hidden prompt", true);
    const theirs = await createConversationFor(other, "sodium for someone else");

    const r = await search(u, "sodium");
    expect(r.status).toBe(200);
    const ids = r.json.results.map((h: { conversation: { id: string } }) => h.conversation.id);
    expect(ids).toEqual([byTitle, byBody]);
    expect(ids).not.toContain(theirs);
    expect(r.json.results[0]).toMatchObject({ match: "title", seq: null, snippet: null });
    const hit = r.json.results[1];
    expect(hit.match).toBe("message");
    expect(hit.seq).toBe(2); // the newest matching message
    expect(hit.snippet).toContain("SODIUM-ion market");
    expect(hit.snippet.length).toBeLessThanOrEqual(160);

    // Wildcards are text: "40%" matches the body, "%" alone matches nothing but a literal %.
    expect(
      (await search(u, "40%")).json.results.map((h: { conversation: { id: string } }) => h.conversation.id),
    ).toEqual([byBody]);
    expect((await search(u, "_")).json.results).toEqual([]);
    expect(likePattern("a%b_c\\d")).toBe("%a\\%b\\_c\\\\d%");

    expect((await search(u, "   ")).json.error.field).toBe("q");
    expect((await search(u, "x".repeat(101))).json.error.field).toBe("q");
    expect((await call(searchRoute.GET, { user: u, path: "/api/conversations/search" })).json.error.field).toBe("q");
    expect((await call(searchRoute.GET, { path: "/api/conversations/search?q=a" })).status).toBe(401);
  });

  it("answers a long adversarial query over long messages quickly", async () => {
    const u = await signUp("Adversary");
    const conv = await createConversationFor(u, "t");
    for (let i = 0; i < 20; i++) await add(u, conv, "assistant", "a".repeat(16_000));
    const started = performance.now();
    const r = await search(u, `${"a".repeat(99)}b`);
    expect(r.json.results).toEqual([]);
    expect(performance.now() - started).toBeLessThan(2000);
  });
});

describe("new chat and titles", () => {
  it("New chat hands back the same empty conversation until something is written in it", async () => {
    const u = await signUp("Drafter");
    const post = (body: unknown) => call(listRoute.POST, { user: u, path: "/api/conversations", body });
    const first = await post({ draft: true });
    expect(first.status).toBe(201);
    const again = await post({ draft: true });
    expect(again.status).toBe(200);
    expect(again.json.id).toBe(first.json.id);
    // Plain creation keeps its meaning: always a new row.
    const plain = await post({});
    expect(plain.status).toBe(201);
    expect(plain.json.id).not.toBe(first.json.id);

    await call(messagesRoute.POST, {
      user: u,
      path: `/api/conversations/${first.json.id}/messages`,
      params: { id: first.json.id },
      body: {
        content: "Could you please research the sodium-ion battery market in Europe, and tell me in 10 minutes",
        clientMessageId: randomUUID(),
      },
    });
    const c = await getDb().conversation.findUniqueOrThrow({ where: { id: first.json.id } });
    expect(c).toMatchObject({ title: "Sodium-ion battery market in Europe", titleSource: "message" });
    const next = await post({ draft: true });
    expect([first.json.id]).not.toContain(next.json.id);
  });

  it("titles come from the topic, then from the first exchange's task; a user's title stays", async () => {
    expect(titleFromMessage("hi, can you look into heat pumps in Norway? Focus on 2024.")).toBe("Heat pumps in Norway");
    expect(titleFromMessage("请帮我研究一下钠离子电池的市场")).toBe("钠离子电池的市场");
    expect(titleFromMessage("   ")).toBe("New chat");
    expect(Array.from(titleFromMessage("word ".repeat(40))).length).toBeLessThanOrEqual(60);

    const u = await signUp("Titler");
    const conv = await createConversationFor(u, "research cobalt please");
    await getDb().conversation.update({ where: { id: conv }, data: { titleSource: "message" } });
    const runId = randomUUID();
    await getDb().task.create({
      data: {
        ownerId: u.id,
        conversationId: conv,
        originRunId: runId,
        title: "Cobalt Price Outlook",
        prompt: "p",
        driver: "research",
        clientRequestId: randomUUID(),
        status: "queued",
      },
    });
    await transaction((tx) => titleAfterExchange(tx, u.id, conv, runId));
    expect(await getDb().conversation.findUniqueOrThrow({ where: { id: conv } })).toMatchObject({
      title: "Cobalt Price Outlook",
      titleSource: "task",
    });

    const mine = await createConversationFor(u, "My own name");
    await getDb().conversation.update({ where: { id: mine }, data: { titleSource: "user" } });
    await transaction((tx) => titleAfterExchange(tx, u.id, mine, runId));
    expect((await getDb().conversation.findUniqueOrThrow({ where: { id: mine } })).title).toBe("My own name");
  });

  it("a chat opened with small talk is named by the first turn that names a topic, then by its research; a user's name stays", async () => {
    const u = await signUp("SmallTalk");
    const conv = await createConversationFor(u);
    const title = async () => (await getDb().conversation.findUniqueOrThrow({ where: { id: conv } })).title;
    const turn = async (content: string, taskTitle?: string) => {
      const res = await call(messagesRoute.POST, {
        user: u,
        path: `/api/conversations/${conv}/messages`,
        params: { id: conv },
        body: { content, clientMessageId: randomUUID() },
      });
      const runId = res.json.run.id as string;
      if (taskTitle) {
        await getDb().task.create({
          data: {
            ownerId: u.id,
            conversationId: conv,
            originRunId: runId,
            title: taskTitle,
            prompt: "p",
            clientRequestId: randomUUID(),
            status: "queued",
          },
        });
      }
      await transaction((tx) => titleAfterExchange(tx, u.id, conv, runId));
      return getDb().conversation.findUniqueOrThrow({ where: { id: conv } });
    };
    expect(await turn("Hi")).toMatchObject({ title: "Hi", titleSource: "message" });
    expect(await turn("能做什么？")).toMatchObject({ title: "Hi", titleSource: "message" });
    expect(await turn("Tell me about heat pumps in Norway")).toMatchObject({
      title: "Heat pumps in Norway",
      titleSource: "exchange",
    });
    expect(await turn("and in Sweden?")).toMatchObject({ title: "Heat pumps in Norway", titleSource: "exchange" });
    expect(await turn("research it properly", "Nordic Heat Pump Adoption")).toMatchObject({
      title: "Nordic Heat Pump Adoption",
      titleSource: "task",
    });
    // The first research names the chat; a later one does not rename it.
    expect(await turn("now look at France", "French Heat Pump Subsidies")).toMatchObject({
      title: "Nordic Heat Pump Adoption",
    });
    expect((await patch(u, conv, { title: "Mine" })).status).toBe(200);
    expect(await turn("one more study", "Another Topic")).toMatchObject({ title: "Mine", titleSource: "user" });
    expect(await title()).toBe("Mine");
  });
});
