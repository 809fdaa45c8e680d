import { describe, expect, it } from "vitest";
import { randomUUID } from "node:crypto";
import { getDb } from "@/lib/db/client";
import * as conversations from "@/app/api/conversations/route";
import * as conversation from "@/app/api/conversations/[id]/route";
import * as messages from "@/app/api/conversations/[id]/messages/route";
import { call, signUp } from "@/tests/helpers";

// Scoped to the test's own accounts: other suites write concurrently.
async function counts(...ownerIds: string[]) {
  const db = getDb();
  const where = { ownerId: { in: ownerIds } };
  return {
    messages: await db.message.count({ where }),
    runs: await db.run.count({ where }),
    conversations: await db.conversation.count({ where }),
  };
}

describe("conversation and message routes", () => {
  it("create, post idempotently, read history", async () => {
    const a = await signUp("Alice");
    const created = await call(conversations.POST, { user: a, body: { title: "Plans" } });
    expect(created.status).toBe(201);
    const id = created.json.id as string;
    const clientMessageId = randomUUID();
    const first = await call(messages.POST, {
      user: a,
      params: { id },
      body: { content: "hi there", clientMessageId },
    });
    expect(first.status).toBe(202);
    expect(first.json.message.kind).toBe("user");
    expect(first.json.run.status).toBe("queued");
    const again = await call(messages.POST, {
      user: a,
      params: { id },
      body: { content: "hi there", clientMessageId },
    });
    expect(again.status).toBe(202);
    expect(again.json.message.id).toBe(first.json.message.id);
    expect(again.json.run.id).toBe(first.json.run.id);
    expect(await getDb().run.count({ where: { conversationId: id } })).toBe(1);
    const history = await call(messages.GET, { user: a, params: { id }, path: `/api/conversations/${id}/messages` });
    expect(history.json.messages.map((m: { content: string }) => m.content)).toEqual(["hi there"]);
    const list = await call(conversations.GET, { user: a });
    expect(list.json.conversations.map((c: { id: string }) => c.id)).toContain(id);
  });

  it("concurrent submissions of one clientMessageId create one turn", async () => {
    const a = await signUp("Racer");
    const id = (await call(conversations.POST, { user: a, body: {} })).json.id;
    const clientMessageId = randomUUID();
    const results = await Promise.all(
      Array.from({ length: 5 }, () =>
        call(messages.POST, { user: a, params: { id }, body: { content: "once", clientMessageId } }),
      ),
    );
    expect(new Set(results.map((r) => r.status))).toEqual(new Set([202]));
    expect(new Set(results.map((r) => r.json.message.id)).size).toBe(1);
    expect(await getDb().message.count({ where: { conversationId: id } })).toBe(1);
  });

  it("account B gets 404 for every route of account A's conversation", async () => {
    const a = await signUp("Owner");
    const b = await signUp("Intruder");
    const id = (await call(conversations.POST, { user: a, body: { title: "secret" } })).json.id;
    const before = await counts(a.id, b.id);
    const attempts = [
      await call(conversation.GET, { user: b, params: { id } }),
      await call(conversation.DELETE, { user: b, method: "DELETE", params: { id } }),
      await call(messages.GET, { user: b, params: { id }, path: `/api/conversations/${id}/messages` }),
      await call(messages.POST, { user: b, params: { id }, body: { content: "x", clientMessageId: randomUUID() } }),
    ];
    for (const r of attempts) {
      expect(r.status).toBe(404);
      expect(r.json.error.code).toBe("not_found");
    }
    expect(await counts(a.id, b.id)).toEqual(before);
    const listB = await call(conversations.GET, { user: b });
    expect(listB.json.conversations).toEqual([]);
    expect((await call(conversation.GET, { user: a, params: { id } })).status).toBe(200);
  });

  it("signed out → 401; cross-site Origin → 403", async () => {
    expect((await call(conversations.GET)).status).toBe(401);
    const a = await signUp("Origin");
    const r = await call(conversations.POST, { user: a, body: {}, headers: { origin: "https://evil.example" } });
    expect(r.status).toBe(403);
  });

  it("bad input → 400 naming the field, nothing written", async () => {
    const a = await signUp("Sloppy");
    const id = (await call(conversations.POST, { user: a, body: {} })).json.id;
    const before = await counts(a.id);
    const cases: [unknown, string][] = [
      [{ clientMessageId: "x" }, "content"],
      [{ content: "", clientMessageId: "x" }, "content"],
      [{ content: 42, clientMessageId: "x" }, "content"],
      [{ content: "x".repeat(16_001), clientMessageId: "x" }, "content"],
      [{ content: "ok" }, "clientMessageId"],
      [{ content: "ok", clientMessageId: "x", extra: 1 }, "extra"],
      [{ content: "ok", clientMessageId: "x", delivery: { mode: "soon", dueInSeconds: 5 } }, "delivery.mode"],
      [{ content: "ok", clientMessageId: "x", delivery: { mode: "at", dueInSeconds: -1 } }, "delivery.dueInSeconds"],
    ];
    for (const [body, field] of cases) {
      const r = await call(messages.POST, { user: a, params: { id }, body });
      expect(r.status, JSON.stringify(body).slice(0, 80)).toBe(400);
      expect(r.json.error.code).toBe("bad_request");
      expect(r.json.error.field).toBe(field);
    }
    const malformed = await call(messages.POST, {
      user: a,
      params: { id },
      rawBody: "{not json",
      headers: { "content-type": "application/json" },
    });
    expect(malformed.status).toBe(400);
    expect(malformed.json.error.field).toBe("body");
    const title = await call(conversations.POST, { user: a, body: { title: "t".repeat(201) } });
    expect(title.status).toBe(400);
    expect(title.json.error.field).toBe("title");
    const huge = await call(messages.POST, {
      user: a,
      params: { id },
      rawBody: JSON.stringify({ content: "x".repeat(300_000), clientMessageId: "y" }),
    });
    expect(huge.status).toBe(413);
    const badAfter = await call(messages.GET, {
      user: a,
      params: { id },
      path: `/api/conversations/${id}/messages?after=abc`,
    });
    expect(badAfter.status).toBe(400);
    expect(badAfter.json.error.field).toBe("after");
    expect(await counts(a.id)).toEqual(before);
  });

  it("deleting a conversation hides it everywhere and cancels its queued turns", async () => {
    const a = await signUp("Deleter");
    const id = (await call(conversations.POST, { user: a, body: {} })).json.id;
    const posted = await call(messages.POST, {
      user: a,
      params: { id },
      body: { content: "soon gone", clientMessageId: randomUUID() },
    });
    expect((await call(conversation.DELETE, { user: a, method: "DELETE", params: { id } })).status).toBe(204);
    expect((await call(conversation.GET, { user: a, params: { id } })).status).toBe(404);
    expect((await call(messages.GET, { user: a, params: { id } })).status).toBe(404);
    expect((await call(conversations.GET, { user: a })).json.conversations).toEqual([]);
    expect((await getDb().run.findUniqueOrThrow({ where: { id: posted.json.run.id } })).status).toBe("cancelled");
    expect((await call(conversation.DELETE, { user: a, method: "DELETE", params: { id } })).status).toBe(404);
  });
});
