import { afterEach, describe, expect, it, vi } from "vitest";
import { randomUUID } from "node:crypto";
import { getDb } from "@/lib/db/client";
import { route } from "@/lib/http/route";
import * as conversations from "@/app/api/conversations/route";
import * as conversation from "@/app/api/conversations/[id]/route";
import * as messages from "@/app/api/conversations/[id]/messages/route";
import * as tasks from "@/app/api/tasks/route";
import * as task from "@/app/api/tasks/[id]/route";
import * as cancel from "@/app/api/tasks/[id]/cancel/route";
import * as update from "@/app/api/tasks/[id]/update/route";
import * as input from "@/app/api/tasks/[id]/input/route";
import { call, signUp, type TestUser } from "@/tests/helpers";

// Input the database cannot hold is a 400 (or a 404 for a path), never a 500.

async function counts(ownerId: string) {
  const db = getDb();
  const where = { ownerId };
  return {
    messages: await db.message.count({ where }),
    runs: await db.run.count({ where }),
    tasks: await db.task.count({ where }),
    conversations: await db.conversation.count({ where }),
    events: await db.event.count({ where }),
  };
}

async function setup(name: string): Promise<{ user: TestUser; conversationId: string; taskId: string }> {
  const user = await signUp(name);
  const conversationId = (await call(conversations.POST, { user, body: { title: "t" } })).json.id as string;
  const started = await call(tasks.POST, {
    user,
    body: { conversationId, title: "Research", prompt: "look into it", clientRequestId: randomUUID() },
  });
  expect(started.status).toBe(202);
  return { user, conversationId, taskId: started.json.task.id as string };
}

function expectBadField(
  r: { status: number; json: { error?: { code: string; field?: string } } },
  field: string,
  what: string,
) {
  expect(r.status, what).toBe(400);
  expect(r.json.error?.code, what).toBe("bad_request");
  expect(r.json.error?.field, what).toBe(field);
}

const NUL = "a\u0000b";
const LONE_HIGH = "a\ud800b";
const LONE_LOW = "\udc00";

describe("input the database cannot hold", () => {
  afterEach(() => vi.restoreAllMocks());

  it("NUL and unpaired surrogates in any body string → 400 naming the field, nothing written", async () => {
    const { user, conversationId, taskId } = await setup("Nul");
    const before = await counts(user.id);
    const msg = { content: "hello", clientMessageId: randomUUID() };
    const start = { conversationId, title: "x", prompt: "y", clientRequestId: randomUUID() };
    for (const bad of [NUL, LONE_HIGH, LONE_LOW]) {
      expectBadField(await call(conversations.POST, { user, body: { title: bad } }), "title", "title");
      const post = (body: unknown) => call(messages.POST, { user, params: { id: conversationId }, body });
      expectBadField(await post({ ...msg, content: bad }), "content", "content");
      expectBadField(await post({ ...msg, clientMessageId: bad }), "clientMessageId", "clientMessageId");
      expectBadField(
        await post({ ...msg, delivery: { mode: bad, dueInSeconds: 60 } }),
        "delivery.mode",
        "delivery.mode",
      );
      expectBadField(await post({ ...msg, delivery: { mode: "at", dueAt: bad } }), "delivery.dueAt", "delivery.dueAt");
      for (const field of ["conversationId", "title", "prompt", "clientRequestId", "driver"]) {
        expectBadField(await call(tasks.POST, { user, body: { ...start, [field]: bad } }), field, field);
      }
      expectBadField(
        await call(update.POST, { user, params: { id: taskId }, body: { message: bad } }),
        "message",
        "update",
      );
      expectBadField(
        await call(input.POST, { user, params: { id: taskId }, body: { response: bad } }),
        "response",
        "input",
      );
    }
    // A key no route knows, and a bad key (named by its parent: echoing it would carry the NUL).
    expectBadField(await call(tasks.POST, { user, body: { ...start, extra: NUL } }), "extra", "unknown key's value");
    expectBadField(await call(tasks.POST, { user, body: { ...start, [NUL]: 1 } }), "body", "bad key");
    expectBadField(
      await call(tasks.POST, { user, body: { ...start, options: { [LONE_HIGH]: 1 } } }),
      "options",
      "nested bad key",
    );
    // An unknown key that is no plausible field name is not echoed back.
    const junk = await call(tasks.POST, { user, body: { ...start, ["<script>".repeat(1000)]: 1 } });
    expectBadField(junk, "body", "junk key");
    expect(JSON.stringify(junk.json)).not.toContain("<script>");
    expect(await counts(user.id)).toEqual(before);
    // Paired surrogates (emoji) and RTL text are fine.
    const ok = await call(messages.POST, {
      user,
      params: { id: conversationId },
      body: { content: "hi 👋 \u202eolleh", clientMessageId: randomUUID() },
    });
    expect(ok.status).toBe(202);
    expect(ok.json.message.content).toBe("hi 👋 \u202eolleh");
  });

  it("NUL in a query parameter → 400 naming it", async () => {
    const { user, conversationId } = await setup("Query");
    expectBadField(
      await call(tasks.GET, { user, path: "/api/tasks?conversationId=%00" }),
      "conversationId",
      "conversationId",
    );
    expectBadField(await call(tasks.GET, { user, path: "/api/tasks?scope=a%00" }), "scope", "scope");
    expectBadField(
      await call(messages.GET, {
        user,
        params: { id: conversationId },
        path: `/api/conversations/${conversationId}/messages?after=1%00`,
      }),
      "after",
      "after",
    );
  });

  it("numeric query parameters are decimal integers within the column's range", async () => {
    const { user, conversationId } = await setup("Numbers");
    const list = (q: string) =>
      call(messages.GET, {
        user,
        params: { id: conversationId },
        path: `/api/conversations/${conversationId}/messages?${q}`,
      });
    for (const v of [
      "1e30",
      "9".repeat(40),
      "-1",
      "1.5",
      "0x10",
      "%201",
      "2147483648",
      "abc",
      "Infinity",
      "NaN",
      "1,2",
    ]) {
      expectBadField(await list(`after=${v}`), "after", `after=${v}`);
    }
    for (const v of ["0", "501", "-1", "1e2", "9".repeat(40)])
      expectBadField(await list(`limit=${v}`), "limit", `limit=${v}`);
    for (const v of ["0", "101", "1.0", "0x1"])
      expectBadField(await call(tasks.GET, { user, path: `/api/tasks?limit=${v}` }), "limit", `tasks limit=${v}`);
    for (const q of ["after=2147483647", "after=0", "after=", "limit=500", "limit=1", "after=007"]) {
      expect((await list(q)).status, q).toBe(200);
    }
    expect((await call(tasks.GET, { user, path: "/api/tasks?limit=100&scope=all" })).status).toBe(200);
    expect((await call(tasks.GET, { user, path: "/api/tasks?conversationId=" })).status).toBe(200);
  });

  it("a path segment that cannot be an id → 404 not_found", async () => {
    const { user, conversationId, taskId } = await setup("Ids");
    const before = await counts(user.id);
    const bad = [
      "\u0000",
      "%00",
      "x",
      "nope",
      conversationId.toUpperCase(),
      `${taskId} `,
      "a".repeat(10_000),
      LONE_HIGH,
      "../" + taskId,
      "1",
    ];
    for (const id of bad) {
      const attempts = [
        await call(conversation.GET, { user, params: { id } }),
        await call(conversation.DELETE, { user, method: "DELETE", params: { id } }),
        await call(messages.GET, { user, params: { id } }),
        await call(messages.POST, { user, params: { id }, body: { content: "x", clientMessageId: randomUUID() } }),
        await call(task.GET, { user, params: { id } }),
        await call(cancel.POST, { user, method: "POST", params: { id } }),
        await call(update.POST, { user, params: { id }, body: { message: "m" } }),
        await call(input.POST, { user, params: { id }, body: { response: "r" } }),
      ];
      for (const r of attempts) {
        expect(r.status, JSON.stringify(id).slice(0, 40)).toBe(404);
        expect(r.json.error.code).toBe("not_found");
      }
    }
    expect((await call(tasks.GET, { user, path: "/api/tasks?conversationId=nope" })).status).toBe(404);
    expect(await counts(user.id)).toEqual(before);
  });

  it("delivery.dueAt is bounded like dueInSeconds", async () => {
    const { user, conversationId } = await setup("Due");
    const before = await counts(user.id);
    const post = (delivery: unknown) =>
      call(messages.POST, {
        user,
        params: { id: conversationId },
        body: { content: "hi", clientMessageId: randomUUID(), delivery },
      });
    const start = (delivery: unknown) =>
      call(tasks.POST, {
        user,
        body: { conversationId, title: "x", prompt: "y", clientRequestId: randomUUID(), delivery },
      });
    const far = new Date(Date.now() + 30 * 24 * 3600_000).toISOString();
    for (const dueAt of [
      "9999-12-31T23:59:59Z",
      "0001-01-01T00:00:00Z",
      "1970-01-01T00:00:00Z",
      far,
      "2026-02-30T00:00:00Z",
      "tomorrow",
    ]) {
      expectBadField(await post({ mode: "at", dueAt }), "delivery.dueAt", dueAt);
      expectBadField(await start({ mode: "by", dueAt }), "delivery.dueAt", dueAt);
    }
    expectBadField(
      await post({ mode: "at", dueInSeconds: 7 * 24 * 3600 + 1 }),
      "delivery.dueInSeconds",
      "dueInSeconds",
    );
    expect(await counts(user.id)).toEqual(before);
    const soon = new Date(Date.now() + 3600_000).toISOString();
    expect((await post({ mode: "at", dueAt: soon })).status).toBe(202);
    expect((await start({ mode: "by", dueAt: soon })).status).toBe(202);
  });

  it("long titles are cut by code points, never through an emoji", async () => {
    const user = await signUp("Emoji");
    const conversationId = (await call(conversations.POST, { user, body: {} })).json.id as string;
    const posted = await call(messages.POST, {
      user,
      params: { id: conversationId },
      body: { content: `${"a".repeat(56)}😀😀😀 and more`, clientMessageId: randomUUID() },
    });
    expect(posted.status).toBe(202);
    const conv = await getDb().conversation.findUniqueOrThrow({ where: { id: conversationId } });
    expect(conv.title).not.toContain("\ufffd");
    // 59 code points and an ellipsis (lib/chat/titles.ts); 59 UTF-16 units would end inside the second emoji.
    expect(conv.title).toBe(`A${"a".repeat(55)}😀😀😀…`);
    const started = await call(tasks.POST, {
      user,
      body: { conversationId, title: `${"b".repeat(119)}😀tail`, prompt: "p", clientRequestId: randomUUID() },
    });
    expect(started.json.task.title).toBe(`${"b".repeat(119)}😀`);
  });

  it("a JSON body route wants a JSON object", async () => {
    const { user, conversationId } = await setup("Body");
    const before = await counts(user.id);
    const json = JSON.stringify({ content: "hi", clientMessageId: randomUUID() });
    const raw = (rawBody: string | undefined, contentType?: string) =>
      call(messages.POST, {
        user,
        method: "POST",
        params: { id: conversationId },
        rawBody,
        headers: contentType ? { "content-type": contentType } : {},
      });
    for (const type of [
      "text/plain",
      "text/plain;charset=UTF-8",
      "multipart/form-data; boundary=x",
      "application/x-www-form-urlencoded",
      "application/jsonx",
      "json",
    ]) {
      expectBadField(await raw(json, type), "body", type);
    }
    expectBadField(await raw(json), "body", "no content-type");
    for (const body of ["[]", '"a string"', "null", "42", "true", '[{"content":"hi"}]']) {
      expectBadField(await raw(body, "application/json"), "body", body);
    }
    const invalidUtf8 = await messages.POST(
      new Request(`http://localhost:3000/api/conversations/${conversationId}/messages`, {
        method: "POST",
        headers: { cookie: user.cookie, origin: "http://localhost:3000", "content-type": "application/json" },
        body: Buffer.from([0x7b, 0x22, 0xff, 0xfe, 0x22, 0x3a, 0x31, 0x7d]),
      }),
      { params: Promise.resolve({ id: conversationId }) },
    );
    expect(invalidUtf8.status).toBe(400);
    expect((await invalidUtf8.json()).error.field).toBe("body");
    expect(await counts(user.id)).toEqual(before);
    // JSON with a charset or a +json type is JSON; an empty body is an empty object.
    expect((await raw(json, "application/json; charset=utf-8")).status).toBe(202);
    expect(
      (await raw(JSON.stringify({ content: "x", clientMessageId: randomUUID() }), "application/vnd.herald+json"))
        .status,
    ).toBe(202);
    expect((await call(conversations.POST, { user, method: "POST" })).status).toBe(201);
  });

  it("an error the wrapper does not know is a JSON 500 with a ref, logged with its stack, and no raw text", async () => {
    const user = await signUp("Boom");
    const log = vi.spyOn(console, "error").mockImplementation(() => {});
    const boom = route({}, async () => {
      throw new Error('relation "secret_table" does not exist at 10.0.0.7');
    });
    const r = await call(boom, { user, path: "/api/boom" });
    expect(r.status).toBe(500);
    expect(r.json.error.code).toBe("internal");
    expect(r.json.error.ref).toMatch(/^[0-9a-f-]{36}$/);
    expect(r.json.error.message).toContain(r.json.error.ref);
    expect(JSON.stringify(r.json)).not.toMatch(/secret_table|10\.0\.0\.7/);
    // One structured line (lib/util/log.ts) carries the ref and the raw error with its stack.
    const logged = log.mock.calls.map((args) => String(args[0])).find((line) => line.includes(r.json.error.ref));
    expect(logged).toBeDefined();
    expect((JSON.parse(logged!) as { err: { stack: string } }).err.stack).toContain("secret_table");
  });
});
