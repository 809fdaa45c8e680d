import { afterEach, describe, expect, it } from "vitest";
import * as conversationsRoute from "@/app/api/conversations/route";
import * as conversationRoute from "@/app/api/conversations/[id]/route";
import * as searchRoute from "@/app/api/conversations/search/route";
import * as threadsRoute from "@/app/api/ap/threads/route";
import { createThread } from "@/lib/agent-protocol/create-thread";
import { MAX_AP_METADATA_BYTES } from "@/lib/contract/ap";
import { getDb } from "@/lib/db/client";
import { ApiError } from "@/lib/errors/api-error";
import { apiKeyFor, call, signUp, type TestUser } from "@/tests/helpers";

const saved = { ...process.env };
afterEach(() => {
  for (const k of Object.keys(process.env)) if (k.startsWith("HERALD_LIMIT")) delete process.env[k];
  Object.assign(process.env, saved);
});

const createChat = (user: TestUser, title = "chat") => call(conversationsRoute.POST, { user, body: { title } });

const keyOf = async (user: TestUser) => (await apiKeyFor(user)).key;

const createApThread = (key: string, body: object = {}) =>
  call(threadsRoute.POST, { body, path: "/api/ap/threads", headers: { "x-api-key": key } });

/** Statuses of `n` sequential calls, stopping at the first refusal. */
async function untilRefused(n: number, make: () => Promise<{ status: number }>): Promise<number[]> {
  const statuses: number[] = [];
  for (let i = 0; i < n; i++) {
    const { status } = await make();
    statuses.push(status);
    if (status === 429) break;
  }
  return statuses;
}

function expectRefused(
  r: { status: number; json: { error: { code: string; message: string } }; res: Response },
  code: string,
) {
  expect(r.status).toBe(429);
  expect(r.json.error.code).toBe(code);
  expect(typeof r.json.error.message).toBe("string");
  expect(Number(r.res.headers.get("retry-after"))).toBeGreaterThanOrEqual(1);
}

describe("conversations and Agent Protocol threads are bounded per account", () => {
  it("150 conversation creations in a row: the 21st of the minute is a 429 rate_limited with Retry-After; another account is unaffected", async () => {
    const a = await signUp("ConvBurst");
    const statuses = await untilRefused(150, () => createChat(a));
    expect(statuses.slice(0, 20).every((s) => s === 201)).toBe(true);
    expect(statuses).toHaveLength(21);
    const refused = await createChat(a);
    expectRefused(refused, "rate_limited");
    expect(Number(refused.res.headers.get("retry-after"))).toBeLessThanOrEqual(60);
    expect(await getDb().conversation.count({ where: { ownerId: a.id } })).toBe(20);

    const b = await signUp("ConvBystander");
    expect((await createChat(b)).status).toBe(201);
  });

  it("150 thread creations in a row: the 21st is a 429; threads and chats share the allowance (a thread is a conversation)", async () => {
    const a = await signUp("ThreadBurst");
    const key = await keyOf(a);
    for (let i = 0; i < 5; i++) expect((await createChat(a)).status).toBe(201);
    const statuses = await untilRefused(150, () => createApThread(key));
    expect(statuses.slice(0, 15).every((s) => s === 200 || s === 201)).toBe(true);
    expect(statuses).toHaveLength(16);
    expectRefused(await createApThread(key, { metadata: { k: "v" } }), "rate_limited");
    expectRefused(await createChat(a), "rate_limited");
    expect(await getDb().conversation.count({ where: { ownerId: a.id } })).toBe(20);
  });

  it("concurrent creations cannot both take the last unit", async () => {
    process.env.HERALD_LIMIT_CONVERSATIONS_PER_MINUTE = "5";
    const a = await signUp("ConvRace");
    const results = await Promise.all(Array.from({ length: 12 }, () => createChat(a)));
    expect(results.filter((r) => r.status === 201)).toHaveLength(5);
    expect(results.filter((r) => r.status === 429)).toHaveLength(7);
  });

  it("conversations kept: past the total a 429 quota_exceeded; deleting one frees a place", async () => {
    process.env.HERALD_LIMIT_CONVERSATIONS = "3";
    const a = await signUp("ConvTotal");
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) {
      const r = await createChat(a);
      expect(r.status).toBe(201);
      ids.push(r.json.id as string);
    }
    expectRefused(await createChat(a), "quota_exceeded");
    // "New chat" with no empty draft to reuse creates one: refused the same way.
    expectRefused(await call(conversationsRoute.POST, { user: a, body: { draft: true } }), "quota_exceeded");
    expect(
      (await call(conversationRoute.DELETE, { user: a, method: "DELETE", params: { id: ids[0] } })).status,
    ).toBeLessThan(300);
    expect((await createChat(a)).status).toBe(201);
  });

  it("HERALD_LIMITS=off lifts them", async () => {
    process.env.HERALD_LIMIT_CONVERSATIONS_PER_MINUTE = "1";
    process.env.HERALD_LIMIT_SEARCHES_PER_MINUTE = "1";
    process.env.HERALD_LIMITS = "off";
    const a = await signUp("ConvOff");
    for (let i = 0; i < 3; i++) expect((await createChat(a)).status).toBe(201);
    for (let i = 0; i < 3; i++)
      expect((await call(searchRoute.GET, { user: a, path: "/api/conversations/search?q=x" })).status).toBe(200);
  });

  it("thread metadata is small: past the cap a 400 naming metadata, from the route and from createThread itself", async () => {
    const a = await signUp("ThreadMeta");
    const key = await keyOf(a);
    const big = { note: "x".repeat(MAX_AP_METADATA_BYTES) };
    const r = await createApThread(key, { metadata: big });
    expect(r.status).toBe(400);
    expect(r.json.error.field).toBe("metadata");
    const direct = await createThread(a.id, { metadata: big }).catch((e: unknown) => e);
    expect(direct).toBeInstanceOf(ApiError);
    expect((direct as ApiError).field).toBe("metadata");
    expect(await getDb().conversation.count({ where: { ownerId: a.id } })).toBe(0);
    expect((await createApThread(key, { metadata: { supervisor_key: "ok" } })).status).toBeLessThan(300);
  });
});

describe("conversation search is throttled per account", () => {
  it("the 61st search of the minute is a 429 rate_limited with Retry-After; another account still searches", async () => {
    const a = await signUp("SearchBurst");
    const statuses = await untilRefused(150, () =>
      call(searchRoute.GET, { user: a, path: "/api/conversations/search?q=nothing-here" }),
    );
    expect(statuses.slice(0, 60).every((s) => s === 200)).toBe(true);
    expect(statuses).toHaveLength(61);
    const refused = await call(searchRoute.GET, { user: a, path: "/api/conversations/search?q=again" });
    expectRefused(refused, "rate_limited");
    const b = await signUp("SearchBystander");
    expect((await call(searchRoute.GET, { user: b, path: "/api/conversations/search?q=again" })).status).toBe(200);
  });
});
