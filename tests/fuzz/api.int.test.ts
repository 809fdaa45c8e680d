import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { randomUUID } from "node:crypto";
import { sql } from "kysely";
import { getDb } from "@/lib/db/client";
import { db } from "@/lib/db/kysely";
import { createConversation } from "@/lib/chat/create-conversation";
import { findUnstorable } from "@/lib/http/route";
import * as conversations from "@/app/api/conversations/route";
import * as conversation from "@/app/api/conversations/[id]/route";
import * as messages from "@/app/api/conversations/[id]/messages/route";
import * as readMark from "@/app/api/conversations/[id]/read/route";
import * as search from "@/app/api/conversations/search/route";
import * as tasks from "@/app/api/tasks/route";
import * as task from "@/app/api/tasks/[id]/route";
import * as cancel from "@/app/api/tasks/[id]/cancel/route";
import * as update from "@/app/api/tasks/[id]/update/route";
import * as input from "@/app/api/tasks/[id]/input/route";
import * as events from "@/app/api/events/route";
import * as health from "@/app/api/health/route";
import * as metrics from "@/app/api/metrics/route";
import { call, ORIGIN, signUp, waitFor, type TestUser } from "@/tests/helpers";
import {
  FUZZ,
  anyString,
  contentTypes,
  fancyText,
  fuzzTimeout,
  headerValue,
  intish,
  notAString,
  oddBody,
  unstorable,
} from "./arbitraries";

// Property-based fuzzing of every route, in-process like Next
// calls them, against the real database. Properties: never a 5xx; every error is
// the JSON contract and a 400 names its field; nothing is written unless the
// answer is 2xx, and then exactly what that answer reports; replays return the
// first result; another account's ids are 404 and its feed never carries ours.
// `npm test` runs a small fixed-seed profile; `npm run fuzz` a long one
// (HERALD_FUZZ_RUNS, HERALD_FUZZ_SEED).

type Handler = Parameters<typeof call>[0];
type Res = Awaited<ReturnType<typeof call>>;

interface Counts {
  messages: number;
  runs: number;
  tasks: number;
  conversations: number;
  events: number;
}

async function counts(ownerId: string): Promise<Counts> {
  const { rows } = await sql<Counts>`
    SELECT (SELECT count(*) FROM "message" WHERE "ownerId" = ${ownerId})::int AS messages,
           (SELECT count(*) FROM "run" WHERE "ownerId" = ${ownerId})::int AS runs,
           (SELECT count(*) FROM "task" WHERE "ownerId" = ${ownerId})::int AS tasks,
           (SELECT count(*) FROM "conversation" WHERE "ownerId" = ${ownerId})::int AS conversations,
           (SELECT count(*) FROM "event" WHERE "ownerId" = ${ownerId})::int AS events`.execute(db());
  return rows[0];
}

const rows = ({ events: _events, ...rest }: Counts) => rest;
const delta = (before: Counts, after: Counts) => ({
  messages: after.messages - before.messages,
  runs: after.runs - before.runs,
  tasks: after.tasks - before.tasks,
  conversations: after.conversations - before.conversations,
});
const NONE = { messages: 0, runs: 0, tasks: 0, conversations: 0 };

/** The error contract (docs/api.md#errors): JSON `{error:{code,message,field?}}` (+ `ref` on a 500); a 400 names its field. */
function expectErrorContract(r: Res, what: string): void {
  expect(r.res.headers.get("content-type"), what).toMatch(/^application\/json/);
  expect(r.json, what).toBeTypeOf("object");
  expect(Object.keys(r.json), what).toEqual(["error"]);
  const e = r.json.error;
  expect(
    Object.keys(e).every((k) => ["code", "message", "field", "ref"].includes(k)),
    what,
  ).toBe(true);
  expect(e.code, what).toMatch(/^[a-z_]+$/);
  expect(e.message, what).toBeTypeOf("string");
  expect(e.message.length, what).toBeGreaterThan(0);
  if (e.field !== undefined) expect(e.field, what).toBeTypeOf("string");
  if (r.status === 400) expect(e.field, `${what}: a 400 names the field at fault`).toBeTypeOf("string");
  if (r.status === 429) expect(r.res.headers.get("retry-after"), what).toMatch(/^\d+$/);
}

const ID_SHAPE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const is2xx = (s: number) => s >= 200 && s < 300;
const storable = (s: string) => findUnstorable(s) === null;

// ---- fixtures ------------------------------------------------------------------

let A: TestUser;
let B: TestUser;
const fx = {
  aConv: "",
  aConv2: "",
  aDeletedConv: "",
  aTask: "",
  aInputTask: "",
  bConv: "",
  bTask: "",
  bMessage: "",
};
/** Successful idempotent creations: key → the ids the first 2xx returned. */
const acceptedMessages = new Map<string, { message: string; run: string; conversationId: string }>();
const acceptedTasks = new Map<string, string>();
const MESSAGE_KEYS = Array.from({ length: 4 }, () => randomUUID());
const TASK_KEYS = Array.from({ length: 4 }, () => randomUUID());
let limitsBefore: string | undefined;

async function startTaskAs(user: TestUser, conversationId: string): Promise<string> {
  const r = await call(tasks.POST, {
    user,
    body: { conversationId, title: "Fixture task", prompt: "research it", clientRequestId: randomUUID() },
  });
  expect(r.status).toBe(202);
  return r.json.task.id;
}

beforeAll(async () => {
  // Quotas are their own suite (lib/limits); here they would only turn most 2xx paths into 429s.
  limitsBefore = process.env.HERALD_LIMITS;
  process.env.HERALD_LIMITS = "off";
  [A, B] = await Promise.all([signUp("FuzzA"), signUp("FuzzB")]);
  const conv = async (user: TestUser) =>
    (await call(conversations.POST, { user, body: { title: "fuzz" } })).json.id as string;
  fx.aConv = await conv(A);
  fx.aConv2 = await conv(A);
  fx.aDeletedConv = await conv(A);
  expect((await call(conversation.DELETE, { user: A, method: "DELETE", params: { id: fx.aDeletedConv } })).status).toBe(
    204,
  );
  fx.aTask = await startTaskAs(A, fx.aConv);
  fx.aInputTask = await startTaskAs(A, fx.aConv);
  // No worker runs here, so put one task where a driver would: waiting for an answer.
  await getDb().task.update({
    where: { id: fx.aInputTask },
    data: { status: "input_required", inputRequest: { question: "Which one?" } },
  });
  fx.bConv = await conv(B);
  fx.bTask = await startTaskAs(B, fx.bConv);
  const posted = await call(messages.POST, {
    user: B,
    params: { id: fx.bConv },
    body: { content: "B's secret", clientMessageId: randomUUID() },
  });
  fx.bMessage = posted.json.message.id;
}, 120_000);

afterAll(() => {
  if (limitsBefore === undefined) delete process.env.HERALD_LIMITS;
  else process.env.HERALD_LIMITS = limitsBefore;
});

// ---- generators ------------------------------------------------------------------

const goodText = fancyText.filter((s) => s.trim().length > 0 && storable(s));

const validDelivery = fc
  .record(
    {
      mode: fc.constantFrom("at", "by"),
      due: fc.oneof(
        fc.integer({ min: 1, max: 7 * 24 * 3600 }).map((s) => ({ dueInSeconds: s })),
        // A day of margin on each side of the bound, so the clock moving during a run cannot flip the verdict.
        fc
          .integer({ min: 300, max: 6 * 24 * 3600 })
          .map((s) => ({ dueAt: new Date(Date.now() + s * 1000).toISOString() })),
      ),
      reportIfUnfinished: fc.option(fc.boolean(), { nil: undefined }),
      allowOvertime: fc.option(fc.boolean(), { nil: undefined }),
      budget: fc.option(
        fc.record(
          {
            maxModelRequests: fc.integer({ min: 1, max: 10_000 }),
            maxWallSeconds: fc.integer({ min: 1, max: 7 * 24 * 3600 }),
          },
          { requiredKeys: [] },
        ),
        { nil: undefined },
      ),
    },
    { requiredKeys: ["mode", "due"] },
  )
  .map(({ due, ...rest }) => JSON.parse(JSON.stringify({ ...rest, ...due })) as Record<string, unknown>);

const messageKey = fc.oneof(fc.uuid(), fc.constantFrom(...MESSAGE_KEYS));
const taskKey = fc.oneof(fc.uuid(), fc.constantFrom(...TASK_KEYS));

const tooLong = (n: number) => fc.integer({ min: n + 1, max: n + 50 }).map((k) => "x".repeat(k));
const badText = (max: number) => fc.oneof(notAString, unstorable, fc.constantFrom("", " ", "\n\t "), tooLong(max));
const badKey = fc.oneof(notAString, unstorable, fc.constant(""), tooLong(100));
const badDelivery: Record<string, fc.Arbitrary<unknown>> = {
  delivery: fc.oneof(fc.integer(), fc.constant("at"), fc.constant(null), fc.array(fc.integer(), { maxLength: 2 })),
  "delivery.mode": fc.oneof(notAString, unstorable, fc.constantFrom("soon", "AT", "")),
  "delivery.dueInSeconds": fc.oneof(
    fc.constantFrom(0, -1, 7 * 24 * 3600 + 1, 1e300, "60", null, true),
    fc.integer({ max: 0 }),
  ),
  "delivery.dueAt": fc.oneof(
    unstorable,
    notAString,
    fc.constantFrom(
      "tomorrow",
      "9999-12-31T23:59:59Z",
      "0001-01-01T00:00:00Z",
      "1970-01-01T00:00:00Z",
      "2026-02-30T00:00:00Z",
      "2026-01-01T00:00:00",
      "+275760-09-13T00:00:00Z",
    ),
    fc.integer({ min: 9, max: 400 }).map((d) => new Date(Date.now() + d * 24 * 3600_000).toISOString()),
  ),
  "delivery.reportIfUnfinished": fc.constantFrom("yes", 1, null),
  "delivery.budget": fc.constantFrom(1, "x", null, [1]),
  "delivery.budget.maxModelRequests": fc.constantFrom(0, 1.5, 10_001, "5", -1),
  "delivery.budget.maxWallSeconds": fc.constantFrom(0, -1, 7 * 24 * 3600 + 1, "60"),
  "delivery.unexpected": fc.constant(1),
};

interface BodySpec {
  valid: () => fc.Arbitrary<Record<string, unknown>>;
  /** path → values that are wrong there whatever the rest of the body holds */
  bad: Record<string, fc.Arbitrary<unknown>>;
  /** the idempotency key, replaced by a fresh one in mutated bodies so a replay cannot answer first */
  key?: string;
}

const BODIES: Record<string, BodySpec> = {
  createConversation: {
    valid: () =>
      fc.record({ title: fc.oneof(goodText, fc.constant("")).filter((t) => t.length <= 200) }, { requiredKeys: [] }),
    bad: { title: fc.oneof(notAString, unstorable, tooLong(200)), unexpected: fc.constant(1) },
  },
  postMessage: {
    valid: () =>
      fc.record(
        { content: goodText, clientMessageId: messageKey, delivery: fc.option(validDelivery, { nil: undefined }) },
        { requiredKeys: ["content", "clientMessageId"] },
      ),
    bad: { content: badText(16_000), clientMessageId: badKey, unexpected: fc.constant(true), ...badDelivery },
    key: "clientMessageId",
  },
  startTask: {
    valid: () =>
      fc.record(
        {
          conversationId: fc.constant(fx.aConv),
          title: goodText.filter((t) => t.length <= 200),
          prompt: goodText,
          clientRequestId: taskKey,
          driver: fc.constant("research"),
          delivery: validDelivery,
        },
        { requiredKeys: ["conversationId", "title", "prompt", "clientRequestId"] },
      ),
    bad: {
      conversationId: fc.oneof(notAString, unstorable, fc.constant(""), tooLong(100)),
      title: badText(200),
      prompt: badText(16_000),
      clientRequestId: badKey,
      driver: fc.oneof(
        notAString,
        unstorable,
        fc.constantFrom("Research", "research ", "mcp:", "mcp:-x", "agent-protocol", "mcp:not-configured"),
      ),
      "options.simulate.steps": fc.constantFrom(0, 51, 1.5, "3"),
      "options.unexpected": fc.constant({}),
      unexpected: fc.constant(0),
      ...badDelivery,
    },
    key: "clientRequestId",
  },
  updateTask: {
    valid: () => fc.record({ message: goodText }),
    bad: { message: badText(4000), unexpected: fc.constant(1) },
  },
  updateConversation: {
    valid: () => {
      const title = goodText.filter((t) => t.trim().length <= 200);
      return fc.oneof(
        fc.record({ title }),
        fc.record({ pinned: fc.boolean() }),
        fc.record({ title, pinned: fc.boolean() }),
      );
    },
    bad: { title: badText(200), pinned: fc.constantFrom("yes", 1, 0, null, "true", []), unexpected: fc.constant(1) },
  },
  markRead: {
    valid: () => fc.record({ seq: fc.nat({ max: 2_147_483_647 }) }),
    bad: { seq: fc.constantFrom(-1, 1.5, "3", null, true, 2_147_483_648, 1e300), unexpected: fc.constant(1) },
  },
  answerInput: {
    valid: () => fc.record({ response: goodText }),
    bad: { response: badText(4000), unexpected: fc.constant(1) },
  },
};

/** Sets `value` at a dotted path, creating valid parents (a delivery needs a mode and one due). */
function setPath(body: Record<string, unknown>, path: string, value: unknown): Record<string, unknown> {
  const out = structuredClone(body);
  const keys = path.split(".");
  const parents: Record<string, () => Record<string, unknown>> = {
    delivery: () => ({ mode: "at", dueInSeconds: 60 }),
    budget: () => ({}),
    options: () => ({}),
    simulate: () => ({}),
  };
  let node = out;
  for (const k of keys.slice(0, -1)) {
    const next = node[k];
    if (typeof next !== "object" || next === null || Array.isArray(next)) node[k] = parents[k]?.() ?? {};
    node = node[k] as Record<string, unknown>;
  }
  node[keys.at(-1)!] = value;
  return out;
}

type BodyChoice =
  | { kind: "valid"; value: Record<string, unknown> }
  | { kind: "mutated"; value: Record<string, unknown>; field: string }
  | { kind: "raw"; raw: string };

function bodyArb(spec: BodySpec): fc.Arbitrary<BodyChoice> {
  const mutated = fc
    .tuple(spec.valid(), fc.constantFrom(...Object.keys(spec.bad)), fc.uuid())
    .chain(([valid, field, freshKey]) =>
      spec.bad[field].map((bad): BodyChoice => {
        const base = spec.key && field !== spec.key ? { ...valid, [spec.key]: freshKey } : valid;
        return { kind: "mutated", value: setPath(base, field, bad), field };
      }),
    );
  return fc.oneof(
    { weight: 4, arbitrary: spec.valid().map((value): BodyChoice => ({ kind: "valid", value })) },
    { weight: 4, arbitrary: mutated },
    {
      weight: 1,
      arbitrary: fc
        .jsonValue({ maxDepth: 3, stringUnit: "binary" })
        .map((v): BodyChoice => ({ kind: "raw", raw: JSON.stringify(v) ?? "" })),
    },
    {
      weight: 1,
      arbitrary: fc
        .dictionary(anyString, fc.jsonValue({ maxDepth: 2 }), { maxKeys: 4 })
        .map((v): BodyChoice => ({ kind: "raw", raw: JSON.stringify(v) })),
    },
    { weight: 1, arbitrary: oddBody.map((raw): BodyChoice => ({ kind: "raw", raw })) },
    {
      weight: 1,
      arbitrary: fc
        .integer({ min: 256 * 1024 - 64, max: 300 * 1024 })
        .map((n): BodyChoice => ({ kind: "raw", raw: JSON.stringify({ content: "y".repeat(n) }) })),
    },
  );
}

type IdChoice = "own" | "fresh" | "foreign" | "deleted" | { literal: string };

const idArb: fc.Arbitrary<IdChoice> = fc.oneof(
  { weight: 6, arbitrary: fc.constant<IdChoice>("own") },
  // A new conversation still titled "New chat": its first message renames it.
  { weight: 2, arbitrary: fc.constant<IdChoice>("fresh") },
  { weight: 1, arbitrary: fc.constant<IdChoice>("foreign") },
  { weight: 1, arbitrary: fc.constant<IdChoice>("deleted") },
  { weight: 1, arbitrary: fc.uuid().map((literal): IdChoice => ({ literal })) },
  { weight: 2, arbitrary: anyString.map((literal): IdChoice => ({ literal })) },
);

interface QueryChoice {
  qs: string;
  valid: boolean;
}

/** Known keys with valid or hostile values, plus stray keys and raw (even malformed) percent-encoding. */
function queryArb(
  known: Record<string, { valid: fc.Arbitrary<string>; any: fc.Arbitrary<string> }>,
): fc.Arbitrary<QueryChoice> {
  const entries = Object.entries(known).map(([k, v]) =>
    fc.option(
      fc.oneof(
        v.valid.map((value) => ({ k, value, valid: true })),
        v.any.map((value) => ({ k, value, valid: false })),
      ),
      { nil: undefined },
    ),
  );
  const stray = fc.array(fc.tuple(anyString, anyString), { maxLength: 2 });
  const raw = fc.option(
    fc.constantFrom(
      "%",
      "%ZZ",
      "%00",
      "%E0%A4%A",
      "%ED%A0%80",
      "&&&",
      "=",
      "a=1=2",
      "after=1&after=2",
      "limit[]=3",
      "#frag",
    ),
    {
      nil: undefined,
    },
  );
  return fc.tuple(fc.tuple(...entries), stray, raw).map(([picked, extra, rawTail]) => {
    const params = new URLSearchParams();
    let valid = rawTail === undefined;
    for (const p of picked) {
      if (!p) continue;
      params.append(p.k, p.value);
      // A "hostile" value may be valid by chance; judge only what was meant to be valid.
      valid &&= p.valid;
    }
    for (const [k, v] of extra) {
      if (k in known) valid = false;
      params.append(k, v);
    }
    if (extra.length) valid &&= extra.every(([k, v]) => storable(k) && storable(v));
    const qs = params.toString() + (rawTail ? `&${rawTail}` : "");
    return { qs, valid };
  });
}

type Cookie = "A" | "none" | "B" | string;
const cookieArb: fc.Arbitrary<Cookie> = fc.oneof(
  { weight: 12, arbitrary: fc.constant<Cookie>("A") },
  { weight: 1, arbitrary: fc.constant<Cookie>("B") },
  { weight: 1, arbitrary: fc.constant<Cookie>("none") },
  { weight: 1, arbitrary: headerValue.map((v) => `better-auth.session_token=${v}`) },
  { weight: 1, arbitrary: headerValue },
);
/** Configured while the metrics route is fuzzed, so its scrape path runs too. */
const METRICS_TOKEN = "fuzz-metrics-token";
const FOREIGN_ORIGINS = [
  "https://evil.example",
  "null",
  "http://localhost:3001",
  "http://localhost:3000.evil.example",
  "not a url",
];
const originArb = fc.oneof(
  { weight: 12, arbitrary: fc.constant<string | undefined>(undefined) },
  { weight: 1, arbitrary: fc.constantFrom(...FOREIGN_ORIGINS) },
  { weight: 1, arbitrary: headerValue.filter((v) => v !== ORIGIN) },
);
const contentTypeArb = fc.oneof(
  { weight: 12, arbitrary: fc.constant<string | undefined>(undefined) },
  { weight: 2, arbitrary: fc.constantFrom(...contentTypes) },
  { weight: 1, arbitrary: headerValue },
);
const extraHeadersArb = fc.array(
  fc.oneof(
    {
      weight: 3,
      arbitrary: fc.tuple(
        fc.constantFrom(
          "x-fuzz",
          "accept",
          "accept-language",
          "user-agent",
          "x-forwarded-for",
          "x-forwarded-host",
          "sec-fetch-site",
        ),
        headerValue,
      ),
    },
    {
      weight: 1,
      arbitrary: fc.tuple(
        fc.constant("content-length"),
        fc.constantFrom("abc", "-1", "0", "1e10", "999999999999", "262145"),
      ),
    },
    {
      weight: 2,
      arbitrary: fc.tuple(
        fc.constant("authorization"),
        fc.oneof(
          headerValue,
          fc.constantFrom(`Bearer ${METRICS_TOKEN}`, `bearer  ${METRICS_TOKEN} `, "Bearer", `Bearer ${METRICS_TOKEN}x`),
        ),
      ),
    },
  ),
  { maxLength: 2 },
);

interface Spec {
  name: string;
  handler: Handler;
  method: "GET" | "POST" | "PATCH" | "DELETE";
  path: (id: string) => string;
  id?: "conversation" | "task" | "inputTask";
  query?: Record<string, { valid: fc.Arbitrary<string>; any: fc.Arbitrary<string> }>;
  body?: BodySpec;
  /** no session needed */
  public?: boolean;
  /** answers statuses for a clean, valid request on the fuzzing account's own ids */
  ok: number[];
  /** the same, when it depends on the request (an idempotency key already spent elsewhere) */
  okFor?: (body: Record<string, unknown>, id: string) => number[];
  /** a fresh own id per request (for deletes) */
  freshOwn?: () => Promise<string>;
  /** the row changes a 2xx must show, given the request and the answer */
  writes?: (body: Record<string, unknown>, r: Res) => typeof NONE;
}

const intQuery = (max: number) => ({ valid: fc.integer({ min: 1, max }).map(String), any: intish });

function messageWrites(body: Record<string, unknown>, r: Res): typeof NONE {
  const key = body.clientMessageId as string;
  const first = acceptedMessages.get(key);
  // What was accepted is what is stored (the schema trims the ends).
  if (!first) expect(r.json.message.content).toBe((body.content as string).trim());
  if (first) {
    expect(
      { message: r.json.message.id, run: r.json.run.id },
      "a replayed clientMessageId returns the first turn",
    ).toEqual({
      message: first.message,
      run: first.run,
    });
    return NONE;
  }
  acceptedMessages.set(key, {
    message: r.json.message.id,
    run: r.json.run.id,
    conversationId: r.json.message.conversationId,
  });
  return { ...NONE, messages: 1, runs: 1 };
}

function taskWrites(body: Record<string, unknown>, r: Res): typeof NONE {
  const key = body.clientRequestId as string;
  const first = acceptedTasks.get(key);
  if (first) {
    expect(r.json.task.id, "a replayed clientRequestId returns the first task").toBe(first);
    return NONE;
  }
  acceptedTasks.set(key, r.json.task.id);
  return { ...NONE, tasks: 1 };
}

function specs(): Spec[] {
  return [
    {
      name: "GET /api/conversations",
      handler: conversations.GET,
      method: "GET",
      path: () => "/api/conversations",
      ok: [200],
    },
    {
      name: "POST /api/conversations",
      handler: conversations.POST,
      method: "POST",
      path: () => "/api/conversations",
      body: BODIES.createConversation,
      ok: [201],
      writes: () => ({ ...NONE, conversations: 1 }),
    },
    {
      name: "GET /api/conversations/:id",
      handler: conversation.GET,
      method: "GET",
      path: (id) => `/api/conversations/${id}`,
      id: "conversation",
      ok: [200],
    },
    {
      name: "DELETE /api/conversations/:id",
      handler: conversation.DELETE,
      method: "DELETE",
      path: (id) => `/api/conversations/${id}`,
      id: "conversation",
      ok: [204],
      freshOwn: async () => (await createConversation(A.id, "to delete")).id,
    },
    // 429 once 20 conversations are pinned (docs/api.md#conversations).
    {
      name: "PATCH /api/conversations/:id",
      handler: conversation.PATCH,
      method: "PATCH",
      path: (id) => `/api/conversations/${id}`,
      id: "conversation",
      body: BODIES.updateConversation,
      ok: [200, 429],
    },
    {
      name: "POST /api/conversations/:id/read",
      handler: readMark.POST,
      method: "POST",
      path: (id) => `/api/conversations/${id}/read`,
      id: "conversation",
      body: BODIES.markRead,
      ok: [200],
    },
    {
      name: "GET /api/conversations/search",
      handler: search.GET,
      method: "GET",
      path: () => "/api/conversations/search",
      query: { q: { valid: goodText.filter((t) => t.trim().length <= 100), any: anyString }, limit: intQuery(50) },
      // 400 naming q when the generated query leaves q out (every known key is optional there).
      ok: [200, 400],
    },
    {
      name: "GET /api/conversations/:id/messages",
      handler: messages.GET,
      method: "GET",
      path: (id) => `/api/conversations/${id}/messages`,
      id: "conversation",
      query: { after: { valid: fc.nat({ max: 2_147_483_647 }).map(String), any: intish }, limit: intQuery(500) },
      ok: [200],
    },
    {
      name: "POST /api/conversations/:id/messages",
      handler: messages.POST,
      method: "POST",
      path: (id) => `/api/conversations/${id}/messages`,
      id: "conversation",
      body: BODIES.postMessage,
      ok: [202],
      okFor: (body, id) => {
        const first = acceptedMessages.get(body.clientMessageId as string);
        return first && first.conversationId !== id ? [409] : [202];
      },
      writes: messageWrites,
    },
    {
      name: "GET /api/tasks",
      handler: tasks.GET,
      method: "GET",
      path: () => "/api/tasks",
      query: {
        conversationId: { valid: fc.constant(fx.aConv), any: fc.oneof(anyString, fc.uuid(), fc.constant(fx.bConv)) },
        scope: { valid: fc.constantFrom("active", "recent", "all"), any: anyString },
        limit: intQuery(100),
      },
      ok: [200],
    },
    {
      name: "POST /api/tasks",
      handler: tasks.POST,
      method: "POST",
      path: () => "/api/tasks",
      body: BODIES.startTask,
      ok: [202],
      writes: taskWrites,
    },
    {
      name: "GET /api/tasks/:id",
      handler: task.GET,
      method: "GET",
      path: (id) => `/api/tasks/${id}`,
      id: "task",
      ok: [200],
    },
    // 503 while no worker is alive is the documented answer (docs/api.md#tasks).
    {
      name: "POST /api/tasks/:id/cancel",
      handler: cancel.POST,
      method: "POST",
      path: (id) => `/api/tasks/${id}/cancel`,
      id: "task",
      ok: [200, 503],
    },
    // 409 once the task has 20 pending updates.
    {
      name: "POST /api/tasks/:id/update",
      handler: update.POST,
      method: "POST",
      path: (id) => `/api/tasks/${id}/update`,
      id: "task",
      body: BODIES.updateTask,
      ok: [200, 409],
    },
    // 409 once answered.
    {
      name: "POST /api/tasks/:id/input",
      handler: input.POST,
      method: "POST",
      path: (id) => `/api/tasks/${id}/input`,
      id: "inputTask",
      body: BODIES.answerInput,
      ok: [200, 409],
    },
    {
      name: "GET /api/events",
      handler: events.GET,
      method: "GET",
      path: () => "/api/events",
      query: { after: { valid: fc.nat({ max: 1000 }).map(String), any: intish } },
      ok: [200],
    },
    {
      name: "GET /api/health",
      handler: health.GET as Handler,
      method: "GET",
      path: () => "/api/health",
      public: true,
      ok: [200],
    },
    // Fuzzed with HERALD_METRICS_TOKEN set: 401 without it.
    {
      name: "GET /api/metrics",
      handler: metrics.GET as Handler,
      method: "GET",
      path: () => "/api/metrics",
      public: true,
      ok: [200, 401],
    },
  ];
}

interface FuzzRequest {
  id: IdChoice;
  query: QueryChoice;
  body: BodyChoice | undefined;
  cookie: Cookie;
  origin: string | undefined;
  contentType: string | undefined;
  extra: [string, string][];
  lastEventId: string | undefined;
}

function requestArb(spec: Spec): fc.Arbitrary<FuzzRequest> {
  return fc.record({
    id: spec.id ? idArb : fc.constant<IdChoice>("own"),
    query: spec.query ? queryArb(spec.query) : fc.oneof(fc.constant({ qs: "", valid: true }), queryArb({})),
    body: spec.body
      ? bodyArb(spec.body)
      : fc.option(
          oddBody.map((raw): BodyChoice => ({ kind: "raw", raw })),
          { nil: undefined, freq: 4 },
        ),
    cookie: cookieArb,
    origin: originArb,
    contentType: contentTypeArb,
    extra: extraHeadersArb,
    lastEventId:
      spec.name === "GET /api/events"
        ? fc.option(fc.oneof(intish, headerValue), { nil: undefined })
        : fc.constant(undefined),
  });
}

/** The id to send, and whose it is ("deleted" is a conversation notion; a task route gets its own task). */
async function resolveId(spec: Spec, id: IdChoice): Promise<{ id: string; own: boolean }> {
  if (typeof id === "object") return { id: id.literal, own: false };
  if (id === "foreign") return { id: spec.id === "conversation" ? fx.bConv : fx.bTask, own: false };
  if (id === "deleted" && spec.id === "conversation") return { id: fx.aDeletedConv, own: false };
  if (spec.freshOwn) return { id: await spec.freshOwn(), own: true };
  if (id === "fresh" && spec.id === "conversation") return { id: (await createConversation(A.id)).id, own: true };
  return { id: spec.id === "task" ? fx.aTask : spec.id === "inputTask" ? fx.aInputTask : fx.aConv, own: true };
}

/** What the Fetch API lets through as a header value (Latin-1, no NUL/CR/LF, trimmed). */
function headerSafe(s: string): boolean {
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c > 0xff || c === 0 || c === 10 || c === 13) return false;
  }
  return s.trim() === s;
}

/** HERALD_FUZZ_STATS=1 prints what each route answered, to see that the generators reach past validation. */
const stats = new Map<string, Map<string, number>>();
function tally(route: string, outcome: string): void {
  if (!process.env.HERALD_FUZZ_STATS) return;
  const m = stats.get(route) ?? new Map<string, number>();
  m.set(outcome, (m.get(outcome) ?? 0) + 1);
  stats.set(route, m);
}
afterAll(() => {
  for (const [route, m] of stats)
    console.log(
      `${route}: ${[...m]
        .sort((x, y) => y[1] - x[1])
        .map(([k, n]) => `${k}×${n}`)
        .join(", ")}`,
    );
});

/** The object a 2xx accepted (an empty body is `{}`; a BOM is not part of the JSON). */
function sentBody(body: BodyChoice | undefined): Record<string, unknown> {
  if (body === undefined) return {};
  if (body.kind !== "raw") return body.value;
  const text = body.raw.replace(/^\ufeff/, "");
  return text.trim() === "" ? {} : JSON.parse(text);
}

/** Sends one fuzzed request and checks every property that does not depend on the route's meaning. */
async function exercise(spec: Spec, req: FuzzRequest): Promise<void> {
  const { id, own: ownId } = await resolveId(spec, req.id);
  const before = await counts(A.id);
  const headers: Record<string, string> = {};
  if (req.cookie === "A") headers.cookie = A.cookie;
  else if (req.cookie === "B") headers.cookie = B.cookie;
  else if (req.cookie !== "none") headers.cookie = req.cookie;
  if (req.origin !== undefined) headers.origin = req.origin;
  for (const [k, v] of req.extra) headers[k] = v;
  const lastEventId = req.lastEventId !== undefined && headerSafe(req.lastEventId) ? req.lastEventId : undefined;
  if (lastEventId !== undefined) headers["last-event-id"] = lastEventId;
  const raw =
    req.body === undefined ? undefined : req.body.kind === "raw" ? req.body.raw : JSON.stringify(req.body.value);
  // GET and HEAD cannot carry a body in the Fetch API.
  const rawBody = spec.method === "GET" ? undefined : raw;
  if (rawBody !== undefined) headers["content-type"] = req.contentType ?? "application/json";
  else if (req.contentType !== undefined) headers["content-type"] = req.contentType;
  const path = `${spec.path(encodeURIComponent(id.replace(/[\ud800-\udfff]/g, "?")))}${req.query.qs ? `?${req.query.qs}` : ""}`;
  const what = `${spec.name} ${JSON.stringify({ id: id.slice(0, 60), qs: req.query.qs.slice(0, 80), body: rawBody?.slice(0, 120), headers: { ...headers, cookie: req.cookie === "A" ? "A" : headers.cookie } })}`;

  const r = await call(spec.handler, { method: spec.method, path, params: spec.id ? { id } : {}, rawBody, headers });
  tally(spec.name, `${r.status}${r.json?.error?.field ? ` ${String(r.json.error.field).slice(0, 40)}` : ""}`);
  if (r.res.headers.get("content-type")?.includes("text/event-stream")) await r.res.body?.cancel();

  // Never a 5xx, except the documented 503 of a cancel with no live worker.
  if (r.status >= 500) {
    const documented = r.status === 503 && spec.ok.includes(503) && r.json?.error?.code === "unavailable";
    expect(documented, `${what} → ${r.status} ${JSON.stringify(r.json)}`).toBe(true);
  }
  if (r.status >= 400) expectErrorContract(r, what);

  // Who may ask: Origin first (mutations), then the session.
  const mutation = spec.method !== "GET";
  const originOk = req.origin === undefined;
  const clean =
    req.cookie === "A" && originOk && req.extra.every(([k]) => !["content-length", "x-forwarded-host"].includes(k));
  if (!spec.public) {
    if (mutation && !originOk) expect(r.status, what).toBe(403);
    else if (req.cookie !== "A" && req.cookie !== "B") expect([401, 403], what).toContain(r.status);
    // B acting on A's resources: as if they did not exist.
    if (req.cookie === "B" && spec.id && ownId) expect(is2xx(r.status), `${what}: B on A's id`).toBe(false);
  }
  const queryValid = req.query.valid && (lastEventId === undefined || /^\d{1,18}$/.test(lastEventId));
  if (clean && !spec.public) {
    const notAnId = typeof req.id === "object" && !ID_SHAPE.test(req.id.literal);
    const jsonBody =
      req.contentType === undefined || /^application\/(json|merge-patch\+json)(;|$)/.test(req.contentType);
    if (spec.id && notAnId) expect(r.status, `${what}: a path that cannot be an id`).toBe(404);
    else if (spec.id && !ownId) expect(is2xx(r.status), `${what}: a foreign or missing id`).toBe(false);
    if (spec.id && !notAnId && jsonBody && queryValid) {
      if (req.body?.kind === "mutated") {
        expect(r.status, `${what}: the one bad field`).toBe(400);
        expect(r.json.error.field, what).toBe(req.body.field);
      }
    }
    if (!spec.id && jsonBody && queryValid && req.body?.kind === "mutated") {
      expect(r.status, `${what}: the one bad field`).toBe(400);
      expect(r.json.error.field, what).toBe(req.body.field);
    }
    if (ownId && jsonBody && queryValid && (req.body === undefined || req.body.kind === "valid")) {
      const ok = spec.okFor && req.body ? spec.okFor(req.body.value, id) : spec.ok;
      expect(ok, `${what} → ${r.status} ${JSON.stringify(r.json).slice(0, 300)}`).toContain(r.status);
    }
  }

  // No partial writes: rows change only on a 2xx, and by what the answer reports.
  const after = await counts(A.id);
  if (!is2xx(r.status) || req.cookie !== "A") {
    // (another account's 2xx writes to its own rows, never to ours)
    expect(after, `${what} → ${r.status}: nothing written`).toEqual(before);
  } else {
    const expected = spec.writes ? spec.writes(sentBody(req.body), r) : NONE;
    expect(delta(before, after), `${what} → ${r.status}: rows written`).toEqual(expected);
  }
}

// ---- properties ------------------------------------------------------------------

describe("API fuzz", () => {
  for (const spec of specs()) {
    it(
      `${spec.name}: no 5xx, the error contract, no partial writes`,
      async () => {
        const savedToken = process.env.HERALD_METRICS_TOKEN;
        if (spec.handler === metrics.GET) process.env.HERALD_METRICS_TOKEN = METRICS_TOKEN;
        try {
          await fc.assert(
            fc.asyncProperty(requestArb(spec), (req) => exercise(spec, req)),
            FUZZ,
          );
        } finally {
          if (savedToken === undefined) delete process.env.HERALD_METRICS_TOKEN;
          else process.env.HERALD_METRICS_TOKEN = savedToken;
        }
      },
      fuzzTimeout(400),
    );
  }

  it(
    "replayed and concurrent idempotency keys create one row and return the same ids",
    async () => {
      await fc.assert(
        fc.asyncProperty(
          fc.constantFrom("message", "task"),
          fc.integer({ min: 2, max: 6 }),
          fc.array(goodText, { minLength: 6, maxLength: 6 }),
          fc.array(fc.boolean(), { minLength: 6, maxLength: 6 }),
          async (kind, n, texts, invalid) => {
            const key = randomUUID();
            const before = await counts(A.id);
            // Some of the racers are invalid: they must fail alone, without taking the key.
            const send = (i: number) =>
              kind === "message"
                ? call(messages.POST, {
                    user: A,
                    params: { id: fx.aConv },
                    body: { content: invalid[i] ? "" : texts[i], clientMessageId: key },
                  })
                : call(tasks.POST, {
                    user: A,
                    body: {
                      conversationId: fx.aConv,
                      title: invalid[i] ? " " : texts[i],
                      prompt: texts[i],
                      clientRequestId: key,
                    },
                  });
            const results = await Promise.all(Array.from({ length: n }, (_, i) => send(i)));
            const okIdx = results.map((r, i) => (is2xx(r.status) ? i : -1)).filter((i) => i >= 0);
            for (const [i, r] of results.entries()) {
              if (invalid[i]) {
                expect(r.status).toBe(400);
                expectErrorContract(r, `racer ${i}`);
              } else expect(r.status).toBe(202);
            }
            const idOf = (r: Res) => (kind === "message" ? `${r.json.message.id}/${r.json.run.id}` : r.json.task.id);
            expect(new Set(okIdx.map((i) => idOf(results[i]))).size).toBeLessThanOrEqual(1);
            const created = okIdx.length > 0 ? 1 : 0;
            const expected =
              kind === "message" ? { ...NONE, messages: created, runs: created } : { ...NONE, tasks: created };
            expect(delta(before, await counts(A.id))).toEqual(expected);
            if (!created) return;
            // A later replay, even with another text, is the first result and writes nothing.
            const mid = await counts(A.id);
            const replay = await send(okIdx.length === n ? 0 : okIdx[0]);
            expect(idOf(replay)).toBe(idOf(results[okIdx[0]]));
            if (kind === "message") {
              // The same key in another conversation is a conflict naming it, not a second turn.
              const elsewhere = await call(messages.POST, {
                user: A,
                params: { id: fx.aConv2 },
                body: { content: "again", clientMessageId: key },
              });
              expect(elsewhere.status).toBe(409);
              expect(elsewhere.json.error.field).toBe("clientMessageId");
            }
            expect(await counts(A.id)).toEqual(mid);
          },
        ),
        FUZZ,
      );
    },
    fuzzTimeout(800),
  );

  it("options.simulate is refused or accepted consistently, by HERALD_ALLOW_SIMULATE alone", async () => {
    const saved = process.env.HERALD_ALLOW_SIMULATE;
    try {
      for (const allowed of [false, true]) {
        if (allowed) process.env.HERALD_ALLOW_SIMULATE = "1";
        else delete process.env.HERALD_ALLOW_SIMULATE;
        for (const simulate of [{}, { steps: 1 }, { steps: 2, stepMs: 0 }]) {
          const key = randomUUID();
          const body = {
            conversationId: fx.aConv,
            title: "sim",
            prompt: "p",
            clientRequestId: key,
            options: { simulate },
          };
          const before = await counts(A.id);
          const first = await call(tasks.POST, { user: A, body });
          const again = await call(tasks.POST, { user: A, body });
          if (allowed) {
            expect([first.status, again.status]).toEqual([202, 202]);
            expect(again.json.task.id).toBe(first.json.task.id);
            expect(delta(before, await counts(A.id))).toEqual({ ...NONE, tasks: 1 });
          } else {
            for (const r of [first, again]) {
              expect(r.status).toBe(400);
              expect(r.json.error.field).toBe("options.simulate");
            }
            expect(await counts(A.id)).toEqual(before);
          }
        }
      }
    } finally {
      if (saved === undefined) delete process.env.HERALD_ALLOW_SIMULATE;
      else process.env.HERALD_ALLOW_SIMULATE = saved;
    }
  });
});

// ---- cross-account ---------------------------------------------------------------

describe("cross-account isolation", () => {
  it("every resource route × another account's ids → 404, and nothing of either account changes", async () => {
    const beforeA = await counts(A.id);
    const beforeB = await counts(B.id);
    const bTaskRow = await getDb().task.findUniqueOrThrow({ where: { id: fx.bTask } });
    const conv = { params: { id: fx.bConv } };
    const tsk = { params: { id: fx.bTask } };
    const attempts: [string, Promise<Res>][] = [
      ["GET conversation", call(conversation.GET, { user: A, ...conv })],
      ["DELETE conversation", call(conversation.DELETE, { user: A, method: "DELETE", ...conv })],
      [
        "PATCH conversation",
        call(conversation.PATCH, { user: A, method: "PATCH", ...conv, body: { title: "mine now", pinned: true } }),
      ],
      ["POST read mark", call(readMark.POST, { user: A, ...conv, body: { seq: 1 } })],
      [
        "GET messages",
        call(messages.GET, { user: A, ...conv, path: `/api/conversations/${fx.bConv}/messages?after=0` }),
      ],
      [
        "POST message",
        call(messages.POST, { user: A, ...conv, body: { content: "hi", clientMessageId: randomUUID() } }),
      ],
      [
        "POST message with delivery",
        call(messages.POST, {
          user: A,
          ...conv,
          body: { content: "hi", clientMessageId: randomUUID(), delivery: { mode: "at", dueInSeconds: 60 } },
        }),
      ],
      ["GET tasks of the conversation", call(tasks.GET, { user: A, path: `/api/tasks?conversationId=${fx.bConv}` })],
      [
        "POST task into the conversation",
        call(tasks.POST, {
          user: A,
          body: { conversationId: fx.bConv, title: "t", prompt: "p", clientRequestId: randomUUID() },
        }),
      ],
      ["GET task", call(task.GET, { user: A, ...tsk })],
      ["POST cancel", call(cancel.POST, { user: A, method: "POST", ...tsk })],
      ["POST update", call(update.POST, { user: A, ...tsk, body: { message: "steer" } })],
      ["POST input", call(input.POST, { user: A, ...tsk, body: { response: "yes" } })],
      // A message id is not a conversation id: still nothing.
      ["GET conversation by message id", call(conversation.GET, { user: A, params: { id: fx.bMessage } })],
    ];
    for (const [what, p] of attempts) {
      const r = await p;
      expect(r.status, what).toBe(404);
      expect(r.json.error.code, what).toBe("not_found");
      expect(JSON.stringify(r.json), what).not.toMatch(new RegExp(`${fx.bConv}|${fx.bTask}|secret`));
    }
    expect(await counts(A.id)).toEqual(beforeA);
    expect(await counts(B.id)).toEqual(beforeB);
    expect(await getDb().task.findUniqueOrThrow({ where: { id: fx.bTask } })).toEqual(bTaskRow);
    const lists = [
      await call(conversations.GET, { user: A }),
      await call(tasks.GET, { user: A, path: "/api/tasks?scope=all" }),
    ];
    for (const l of lists)
      expect(JSON.stringify(l.json)).not.toMatch(new RegExp(`${fx.bConv}|${fx.bTask}|${fx.bMessage}`));
    // The same idempotency key as B used is A's own key: a new row, never B's.
    const bKey = (await getDb().message.findUniqueOrThrow({ where: { id: fx.bMessage } })).clientMessageId!;
    const mine = await call(messages.POST, {
      user: A,
      params: { id: fx.aConv2 },
      body: { content: "mine", clientMessageId: bKey },
    });
    expect(mine.status).toBe(202);
    expect(mine.json.message.id).not.toBe(fx.bMessage);
    expect(rows(await counts(B.id))).toEqual(rows(beforeB));
  });

  it("another account's feed never carries our events", async () => {
    const seqOf = async (u: TestUser) =>
      (await getDb().user.findUniqueOrThrow({ where: { id: u.id }, select: { eventSeq: true } })).eventSeq.toString();
    const open = async (u: TestUser, after: string) =>
      collect((await call(events.GET, { user: u, path: `/api/events?after=${after}` })).res);
    const feedA = await open(A, await seqOf(A));
    const feedB = await open(B, await seqOf(B));
    const feedBFromStart = await open(B, "0");
    try {
      // Act as A on every kind of fact the feed reports.
      const conv = (await call(conversations.POST, { user: A, body: { title: "A's private plans" } })).json
        .id as string;
      const posted = await call(messages.POST, {
        user: A,
        params: { id: conv },
        body: { content: "A's secret turn", clientMessageId: randomUUID() },
      });
      const started = await call(tasks.POST, {
        user: A,
        body: { conversationId: conv, title: "A's task", prompt: "p", clientRequestId: randomUUID() },
      });
      await call(update.POST, { user: A, params: { id: started.json.task.id }, body: { message: "steer" } });
      await call(cancel.POST, { user: A, method: "POST", params: { id: started.json.task.id } });
      await call(conversation.DELETE, { user: A, method: "DELETE", params: { id: conv } });
      const aIds = [conv, posted.json.message.id, posted.json.run.id, started.json.task.id];
      // Positive control: A's own feed got them all, through to the delete.
      await waitFor(
        async () => aIds.every((id) => feedA.text().includes(id)) && /"deleted":true/.test(feedA.text()),
        20_000,
        "A's events on A's feed",
      );
      // B's marker is emitted after A's facts committed; once B sees it, anything of A's would have arrived.
      const marker = (await call(conversations.POST, { user: B, body: { title: "B marker" } })).json.id as string;
      await waitFor(
        async () => feedB.text().includes(marker) && feedBFromStart.text().includes(marker),
        20_000,
        "B's marker on B's feeds",
      );
      for (const feed of [feedB, feedBFromStart]) {
        for (const id of aIds) expect(feed.text()).not.toContain(id);
        expect(feed.text()).not.toMatch(/A's (private|secret|task)/);
      }
      expect(feedBFromStart.text()).toContain(fx.bConv);
    } finally {
      await Promise.all([feedA.stop(), feedB.stop(), feedBFromStart.stop()]);
    }
  });
});

/** Reads an SSE response into a growing buffer until stopped. */
function collect(res: Response) {
  expect(res.status).toBe(200);
  const reader = res.body!.getReader();
  const dec = new TextDecoder();
  let text = "";
  const pump = (async () => {
    try {
      for (;;) {
        const chunk = await reader.read();
        if (chunk.done) return;
        text += dec.decode(chunk.value, { stream: true });
      }
    } catch {
      // cancelled
    }
  })();
  return {
    text: () => text,
    stop: async () => {
      await reader.cancel().catch(() => {});
      await pump;
    },
  };
}
