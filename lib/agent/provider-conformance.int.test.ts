import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { getDb } from "@/lib/db/client";
import { postMessage } from "@/lib/chat/post-message";
import { startWorker, type RunningWorker } from "@/lib/runtime/start-worker";
import { createConversationFor, signUp, waitFor, type TestUser } from "@/tests/helpers";
import {
  ACK_TEXT,
  alternationError,
  DEFAULT_BEHAVIOURS,
  GREETING_TEXT,
  NARRATION_TEXT,
  PLAN_TITLES,
  startOpenAIPeer,
  TEXT_BEFORE_TOOLS,
  type OpenAIPeer,
  type PeerBehaviours,
  type PeerRequest,
} from "@/tests/openai-peer";
import { READ_ONLY_TOOLS } from "./tools";

/**
 * Provider conformance: Herald's real chat path (a worker in this process
 * claiming runs and tasks from Postgres, the AI SDK's OpenAI-compatible
 * provider, real HTTP) against tests/openai-peer.ts behaving like a real
 * provider. Each behaviour gets a conversation: a chat turn, a request that the
 * model answers with a tool call starting a research task, that task's
 * narration, and a follow-up turn. Outages (429, 5xx, stalls) are the
 * resilience suite's.
 */

let peer: OpenAIPeer;
let worker: RunningWorker;
const ENV: Record<string, string> = {
  HERALD_MODEL_PROVIDER: "vllm",
  HERALD_MODEL: "peer-model",
  HERALD_RESEARCH_STEP_MS: "0",
  HERALD_RESEARCH_STEPS: "4",
  HERALD_NARRATION: "on",
};

beforeAll(async () => {
  peer = await startOpenAIPeer();
  Object.assign(process.env, ENV, { OPENAI_BASE_URL: peer.baseURL });
  worker = await startWorker({ concurrency: 4 });
});

afterAll(async () => {
  await worker?.stop();
  await peer?.stop();
  for (const k of [...Object.keys(ENV), "OPENAI_BASE_URL", "HERALD_MODEL_TOOLS"]) delete process.env[k];
});

beforeEach(() => {
  Object.assign(peer.behaviours, DEFAULT_BEHAVIOURS);
  process.env.HERALD_MODEL_PROVIDER = "vllm";
  delete process.env.HERALD_MODEL_TOOLS;
});

async function reply(runId: string): Promise<{ status: string; text: string | null }> {
  const run = await waitFor(
    async () => {
      const r = await getDb().run.findUniqueOrThrow({ where: { id: runId } });
      return r.status === "succeeded" || r.status === "failed" ? r : null;
    },
    30_000,
    `run ${runId} to finish`,
  );
  const msg = await getDb().message.findFirst({ where: { runId, kind: "assistant" } });
  return { status: run.status, text: msg?.content ?? null };
}

async function say(user: TestUser, conversationId: string, content: string) {
  const { run } = await postMessage(user.id, conversationId, { content, clientMessageId: randomUUID() });
  return reply(run.id);
}

async function finishedTasks(conversationId: string, count: number) {
  return waitFor(
    async () => {
      const tasks = await getDb().task.findMany({ where: { conversationId }, orderBy: { createdAt: "asc" } });
      return tasks.length === count && tasks.every((t) => ["succeeded", "failed", "cancelled"].includes(t.status))
        ? tasks
        : null;
    },
    60_000,
    `${count} task(s) to finish`,
  );
}

async function narrations(conversationId: string, count: number) {
  return waitFor(
    async () => {
      const runs = await getDb().run.findMany({
        where: { conversationId, kind: "notification", status: { in: ["succeeded", "failed"] } },
      });
      if (runs.length < count) return null;
      const msgs = await getDb().message.findMany({
        where: { runId: { in: runs.map((r) => r.id) }, kind: "assistant" },
      });
      return msgs.length === count ? { runs, texts: msgs.map((m) => m.content) } : null;
    },
    60_000,
    `${count} narration(s)`,
  );
}

interface Conversation {
  hello: { status: string; text: string | null };
  ack: { status: string; text: string | null };
  tasks: Awaited<ReturnType<typeof finishedTasks>>;
  narrated: Awaited<ReturnType<typeof narrations>>;
  followUp: { status: string; text: string | null };
  requests: PeerRequest[];
  conversationId: string;
}

/** One whole conversation under `behaviours`; `ask` is the message that should start `expectTasks` research tasks. */
async function converse(
  behaviours: Partial<PeerBehaviours>,
  ask = "Please research the history of tidal power",
  expectTasks = 1,
): Promise<Conversation> {
  Object.assign(peer.behaviours, behaviours);
  const from = peer.requests.length;
  const user = await signUp("Conformance");
  const conversationId = await createConversationFor(user);
  const hello = await say(user, conversationId, "Hello");
  const ack = await say(user, conversationId, ask);
  const tasks = await finishedTasks(conversationId, expectTasks);
  const narrated = await narrations(conversationId, expectTasks);
  // After an acknowledgement and a narration (two assistant messages in a row in the stored history).
  const followUp = await say(user, conversationId, "Thanks!");
  return { hello, ack, tasks, narrated, followUp, requests: peer.requests.slice(from), conversationId };
}

/** The `##` headings of the task's latest published body: the summary, then the sections (no network here: no Sources). */
async function sectionTitles(taskId: string): Promise<string[]> {
  const body = await getDb().message.findFirst({ where: { taskId, kind: "body" }, orderBy: { seq: "desc" } });
  return [...(body?.content ?? "").matchAll(/^## (.+)$/gm)].map((m) => m[1]);
}

/** What every conversation must show, whatever the provider did. */
async function expectWorking(c: Conversation, opts: { ack?: string } = {}) {
  expect(c.hello).toEqual({ status: "succeeded", text: GREETING_TEXT });
  expect(c.ack).toEqual({ status: "succeeded", text: opts.ack ?? ACK_TEXT });
  for (const t of c.tasks) {
    expect(t.status).toBe("succeeded");
    expect(await sectionTitles(t.id)).toEqual(["Summary", ...PLAN_TITLES]);
  }
  expect(c.narrated.runs.every((r) => r.status === "succeeded")).toBe(true);
  expect(c.narrated.texts.every((t) => t === NARRATION_TEXT)).toBe(true);
  expect(c.followUp).toEqual({ status: "succeeded", text: GREETING_TEXT });
  expect(c.requests.filter((r) => r.outcome !== "ok").map((r) => r.outcome)).toEqual([]);
}

const chatRequests = (c: Conversation) => c.requests.filter((r) => r.messages[0]?.role === "system");

describe("provider conformance: a conversation keeps working", () => {
  it("baseline (vLLM profile): usage asked for, strict tool schemas, read-only tools for narration, alternating roles", async () => {
    const c = await converse({});
    await expectWorking(c);
    expect(
      c.requests.every((r) =>
        r.stream ? (r.streamOptions as { include_usage?: boolean })?.include_usage === true : true,
      ),
    ).toBe(true);
    for (const r of chatRequests(c)) {
      expect(alternationError(r.messages)).toBeNull();
      for (const t of r.toolDefinitions) {
        expect(JSON.stringify(t.function.parameters)).not.toContain("$schema");
        expect(t.function.parameters).toMatchObject({ additionalProperties: false });
      }
    }
    const narrationTurn = chatRequests(c).find((r) =>
      JSON.stringify(r.messages.at(-1)?.content).includes("[herald:task-notification]"),
    );
    expect(narrationTurn?.tools.sort()).toEqual([...READ_ONLY_TOOLS].sort());
    // The system prompt ends with the time to the minute, never seconds.
    expect(String(chatRequests(c)[0].messages[0].content)).toMatch(/Current time: \d{4}-\d\d-\d\d \d\d:\d\d UTC\.$/);
  });

  it("strict role alternation (Mistral/Gemma templates): merged turns, queued turns included", async () => {
    const c = await converse({ strictAlternation: true });
    await expectWorking(c);
    // Two messages sent before the first is answered: the second turn's history has two user messages in a row.
    const user = await signUp("Queued");
    const conversationId = await createConversationFor(user);
    const first = await postMessage(user.id, conversationId, { content: "Hello", clientMessageId: randomUUID() });
    const second = await postMessage(user.id, conversationId, {
      content: "Are you there?",
      clientMessageId: randomUUID(),
    });
    expect(await reply(first.run.id)).toEqual({ status: "succeeded", text: GREETING_TEXT });
    expect(await reply(second.run.id)).toEqual({ status: "succeeded", text: GREETING_TEXT });
    const last = peer.requests.at(-1)!;
    expect(last.outcome).toBe("ok");
    expect(last.messages.filter((m) => m.role === "user").at(-1)?.content).toBe("Hello\n\nAre you there?");
    // The follow-up after ack + narration went as one assistant message.
    const followUp = chatRequests(c).at(-1)!;
    expect(followUp.messages.map((m) => m.role)).toEqual(["system", "user", "assistant", "user", "assistant", "user"]);
    expect(followUp.messages[4].content).toBe(`${ACK_TEXT}\n\n${NARRATION_TEXT}`);
  });

  it("tool-call arguments split into one-character chunks", async () => {
    const c = await converse({ argsChunk: 1, textChunk: 1 });
    await expectWorking(c);
    expect(c.tasks[0].title).toBe("the history of tidal power");
  });

  it("text before the tool call stays apart from the text after it", async () => {
    const c = await converse({ textBeforeToolCalls: TEXT_BEFORE_TOOLS });
    await expectWorking(c, { ack: `${TEXT_BEFORE_TOOLS}\n\n${ACK_TEXT}` });
  });

  it("parallel tool calls start both tasks and both are narrated", async () => {
    const c = await converse({ parallelToolCalls: true }, "Please research tidal power and wave energy", 2);
    await expectWorking(c);
    expect(c.tasks.map((t) => t.title).sort()).toEqual(["tidal power", "wave energy"]);
  });

  it("reasoning deltas (reasoning_content, reasoning) never reach the reply", async () => {
    for (const field of ["reasoning_content", "reasoning"] as const) {
      const c = await converse({ reasoning: field });
      await expectWorking(c);
    }
  });

  it("streams that end without a finish reason keep their text and tool calls", async () => {
    const c = await converse({ omitFinishReason: true });
    await expectWorking(c);
  });

  it("a stream cut mid-way keeps the text the user already saw", async () => {
    peer.behaviours.cutStreamAfterChunks = 4;
    const user = await signUp("Cut");
    const conversationId = await createConversationFor(user);
    const r = await say(user, conversationId, "Hello");
    expect(r.status).toBe("succeeded");
    expect(r.text).toBe(GREETING_TEXT.slice(0, 18));
    peer.behaviours.cutStreamAfterChunks = null;
    expect(await say(user, conversationId, "Hello again")).toEqual({ status: "succeeded", text: GREETING_TEXT });
  });

  it("a server that refuses tools (vLLM without its flags, llama.cpp without --jinja) still chats with HERALD_MODEL_TOOLS=off", async () => {
    for (const refuseTools of ["vllm", "llamacpp"] as const) {
      peer.behaviours.refuseTools = refuseTools;
      process.env.HERALD_MODEL_PROVIDER = refuseTools;
      process.env.HERALD_MODEL_TOOLS = "off";
      const user = await signUp("NoTools");
      const conversationId = await createConversationFor(user);
      const from = peer.requests.length;
      expect(await say(user, conversationId, "Hello")).toEqual({ status: "succeeded", text: GREETING_TEXT });
      expect(await say(user, conversationId, "Please research tidal power")).toMatchObject({ status: "succeeded" });
      const sent = peer.requests.slice(from);
      expect(sent.map((r) => [r.outcome, r.tools.length])).toEqual([
        ["ok", 0],
        ["ok", 0],
      ]);
      expect(String(sent[0].messages[0].content)).toContain("cannot start, look up or change background tasks");
    }
  });

  it("a plan written as prose by an endpoint without JSON mode still yields its four sections", async () => {
    peer.behaviours.refuseResponseFormat = true;
    const user = await signUp("ProsePlan");
    const conversationId = await createConversationFor(user);
    const from = peer.requests.length;
    expect(await say(user, conversationId, "Please research the history of tidal power")).toEqual({
      status: "succeeded",
      text: ACK_TEXT,
    });
    const [task] = await finishedTasks(conversationId, 1);
    expect(task.status).toBe("succeeded");
    expect(await sectionTitles(task.id)).toEqual(["Summary", ...PLAN_TITLES]);
    // The structured request was refused, and the plain one got the prose plan ("Here's a plan…:", bold titles, glosses).
    const plans = peer.requests
      .slice(from)
      .filter((r) => JSON.stringify(r.messages).includes("[herald:research-plan]"));
    expect(plans.map((r) => [r.outcome, r.responseFormat === null])).toEqual([
      ["400", false],
      ["ok", true],
    ]);
  });

  it("the openai-compatible profile asks for no usage chunk; vLLM's does", async () => {
    process.env.HERALD_MODEL_PROVIDER = "openai-compatible";
    const user = await signUp("Generic");
    const conversationId = await createConversationFor(user);
    expect(await say(user, conversationId, "Hello")).toEqual({ status: "succeeded", text: GREETING_TEXT });
    expect(peer.requests.at(-1)?.streamOptions).toBeNull();
    process.env.HERALD_MODEL_PROVIDER = "vllm";
    expect(await say(user, conversationId, "Hello")).toEqual({ status: "succeeded", text: GREETING_TEXT });
    expect(peer.requests.at(-1)?.streamOptions).toEqual({ include_usage: true });
  });
});
