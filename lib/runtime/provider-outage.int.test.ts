import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from "vitest";
import { randomUUID } from "node:crypto";
import { getDb } from "@/lib/db/client";
import { db } from "@/lib/db/kysely";
import { sql } from "kysely";
import { startTask } from "@/lib/tasks/start-task";
import { claimExecution } from "@/lib/tasks/sql";
import { executeTask } from "@/lib/runtime/execute-task";
import { postMessage } from "@/lib/chat/post-message";
import { toPublicTask } from "@/lib/contract/task";
import { resetBreakers } from "@/lib/util/breaker";
import { collectMetrics } from "@/lib/metrics/collect";
import { ERROR_CATEGORIES } from "@/lib/errors/categories";
import { PLAN_TITLES, startOpenAIPeer, type OpenAIPeer } from "@/tests/openai-peer";
import {
  createConversationFor,
  signUp,
  startWorkerProcess,
  stopWorkers,
  waitFor,
  type TestUser,
  type WorkerProc,
} from "@/tests/helpers";

/**
 * Research tasks against a real OpenAI-compatible server that fails the way
 * providers do. Budgets are seconds here instead of minutes; the mechanism
 * (deferred steps measured on the database clock) is the same.
 */
const MODEL_ENV = {
  HERALD_MODEL_PROVIDER: "vllm",
  OPENAI_API_KEY: "test-key",
  HERALD_MODEL: "peer-model",
  HERALD_MODEL_TIMEOUT_MS: "1500",
  HERALD_MODEL_ANSWER_TIMEOUT_MS: "1500",
  HERALD_MODEL_RETRY_INTERACTIVE_MS: "5000",
  HERALD_MODEL_RETRY_BACKGROUND_MS: "8000",
  HERALD_MODEL_PRICES: JSON.stringify({ "peer-model": { input: 2, output: 8 } }),
};

let peer: OpenAIPeer;
let user: TestUser;
const saved: Record<string, string | undefined> = {};
// publicError logs each wait and failure; the test reads the log instead of printing it.
const errorLog = vi.spyOn(console, "error").mockImplementation(() => {});

beforeAll(async () => {
  peer = await startOpenAIPeer();
  for (const [k, v] of Object.entries({ ...MODEL_ENV, OPENAI_BASE_URL: peer.baseURL })) {
    saved[k] = process.env[k];
    process.env[k] = v;
  }
  user = await signUp("Outage");
});

afterAll(async () => {
  for (const [k, v] of Object.entries(saved)) {
    if (v === undefined) delete process.env[k];
    else process.env[k] = v;
  }
  await peer?.stop();
  errorLog.mockRestore();
});

async function newResearch(steps = 2) {
  const conv = await createConversationFor(user);
  const { task } = await startTask({
    ownerId: user.id,
    conversationId: conv,
    title: "Steel",
    prompt: "research the history of steel",
    clientRequestId: randomUUID(),
    options: { simulate: { steps, stepMs: 0 } },
  });
  return task.id;
}

const row = (id: string) => getDb().task.findUniqueOrThrow({ where: { id } });
const metric = (text: string, line: string) =>
  Number(
    text
      .split("\n")
      .find((l) => l.startsWith(`${line} `))
      ?.split(" ")
      .pop(),
  );

/** This process is the worker: claims the task whenever it is due and runs one step, until it ends. */
async function drive(id: string, until: (t: Awaited<ReturnType<typeof row>>) => boolean, timeoutMs = 30_000) {
  const outcomes: string[] = [];
  await waitFor(
    async () => {
      const [claimed] = await claimExecution("outage-test", 1, [id]);
      if (claimed) outcomes.push(await executeTask(claimed, new AbortController().signal));
      return until(await row(id));
    },
    timeoutMs,
    `task ${id}`,
  );
  return outcomes;
}

describe("research tasks and a failing model provider", () => {
  // Each case is its own outage; the breaker (per process) would carry one case's cooldown into the next.
  beforeEach(() => resetBreakers());

  it("429 with Retry-After: the step is deferred for that long, holding no lease, and the task says it waits", async () => {
    const id = await newResearch(1);
    await drive(id, (t) => t.status === "queued");
    peer.failNext(1, { status: 429, retryAfter: 3 });
    const [claimed] = await claimExecution("outage-test", 1, [id]);
    expect(await executeTask(claimed, new AbortController().signal)).toBe("deferred");
    const { wait } = await db()
      .selectFrom("task")
      .select(sql<number>`extract(epoch FROM "nextRunAt" - now())::float8`.as("wait"))
      .where("id", "=", id)
      .executeTakeFirstOrThrow();
    expect(wait).toBeGreaterThan(2.5);
    expect(wait).toBeLessThanOrEqual(3);
    const waiting = await row(id);
    expect(waiting.leaseToken).toBeNull();
    expect(waiting.consecutiveErrors).toBe(0);
    expect(toPublicTask(waiting).waitingForProvider?.since).toBe(waiting.providerWaitSince!.toISOString());
    // Not claimable before the provider's time; operators see it waiting.
    expect(await claimExecution("outage-test", 1, [id])).toEqual([]);
    expect(metric(await collectMetrics(), "herald_tasks_waiting_for_provider")).toBeGreaterThanOrEqual(1);
    await drive(id, (t) => t.status === "succeeded");
    const done = await row(id);
    expect(done.providerWaitSince).toBeNull();
    expect(toPublicTask(done).waitingForProvider).toBeNull();
    expect(JSON.stringify(errorLog.mock.calls)).toContain(`tasks ${id}: step waits for the model provider`);
  });

  it("survives a 5xx outage longer than the old five-errors limit, then finishes with the plan from structured output", async () => {
    const id = await newResearch(2);
    await drive(id, (t) => t.status === "queued");
    const before = peer.requests.length;
    // Room for the outage plus the breaker's cooldown after it (5 s).
    process.env.HERALD_MODEL_RETRY_BACKGROUND_MS = "20000";
    peer.behaviours.outage = { status: 503 };
    const started = Date.now();
    try {
      // Six seconds of 503s: the old policy failed the task at its fifth consecutive error (about 30 s of backoff in
      // production, moments here); now the tries are spread by backoff and the breaker, and the task waits.
      await drive(id, () => Date.now() - started > 6_000);
      expect(peer.requests.slice(before).filter((r) => r.outcome === "503").length).toBeGreaterThanOrEqual(5);
      const mid = await row(id);
      expect(mid.status).toBe("running");
      expect(toPublicTask(mid).waitingForProvider).not.toBeNull();
    } finally {
      peer.behaviours.outage = null;
    }
    const outageMs = Date.now() - started;
    process.env.HERALD_MODEL_RETRY_BACKGROUND_MS = MODEL_ENV.HERALD_MODEL_RETRY_BACKGROUND_MS;
    await drive(id, (t) => t.status === "succeeded" || t.status === "failed");
    const done = await row(id);
    expect(done.status).toBe("succeeded");
    expect(outageMs).toBeGreaterThan(3_000);
    const plan = await getDb().taskStep.findFirstOrThrow({ where: { taskId: id, index: 0 } });
    expect((plan.output as { sections: string[] }).sections).toEqual(PLAN_TITLES.slice(0, 2));
    // The breaker kept the worker from hammering the dead endpoint: no more than a try per ~half second.
    const failed = peer.requests.slice(before).filter((r) => r.outcome === "503").length;
    expect(failed).toBeLessThan(outageMs / 400);
  });

  it("fails with the provider's category once the wait outlasts its budget", async () => {
    process.env.HERALD_MODEL_RETRY_BACKGROUND_MS = "2000";
    const id = await newResearch(1);
    try {
      await drive(id, (t) => t.status === "queued");
      peer.behaviours.outage = { status: 502 };
      await drive(id, (t) => t.status === "failed", 20_000);
    } finally {
      peer.behaviours.outage = null;
      process.env.HERALD_MODEL_RETRY_BACKGROUND_MS = MODEL_ENV.HERALD_MODEL_RETRY_BACKGROUND_MS;
    }
    const failed = await row(id);
    expect(failed.error).toBe(ERROR_CATEGORIES.model_unavailable);
    expect(toPublicTask(failed).waitingForProvider).toBeNull();
  });

  it("records tokens per request, step and task, with the estimated cost", async () => {
    const id = await newResearch(2);
    await drive(id, (t) => t.status === "succeeded");
    const task = await row(id);
    const steps = await getDb().taskStep.findMany({ where: { taskId: id } });
    expect(steps).toHaveLength(3);
    for (const s of steps) expect(s.inputTokens).toBeGreaterThan(0);
    expect(task.inputTokens).toBe(steps.reduce((n, s) => n + s.inputTokens, 0));
    expect(task.outputTokens).toBe(steps.reduce((n, s) => n + s.outputTokens, 0));
    expect(task.costUsd).toBeCloseTo((task.inputTokens * 2 + task.outputTokens * 8) / 1e6, 12);
    const text = await collectMetrics();
    expect(metric(text, 'herald_model_tokens{work="task",direction="input"}')).toBeGreaterThanOrEqual(task.inputTokens);
    expect(metric(text, 'herald_model_tokens{work="task",direction="output"}')).toBeGreaterThanOrEqual(
      task.outputTokens,
    );
    expect(metric(text, 'herald_model_cost_usd{work="task"}')).toBeGreaterThanOrEqual(task.costUsd!);
    expect(toPublicTask(task).spent).toEqual({
      modelRequests: task.modelRequests,
      inputTokens: task.inputTokens,
      outputTokens: task.outputTokens,
      costUsd: task.costUsd,
      // No network here: the default provider's searches fail, no page is read.
      searches: expect.any(Number),
      pagesRead: 0,
    });
  });
});

describe("chat turns and a failing model provider", () => {
  let worker: WorkerProc;
  beforeAll(() => {
    // No narration of the tasks above: a narration request could take the 429 meant for the turn.
    worker = startWorkerProcess({ ...MODEL_ENV, OPENAI_BASE_URL: peer.baseURL, HERALD_NARRATION: "off" });
  });
  afterAll(async () => {
    await stopWorkers(worker);
  });

  it("a turn rides out a 429 with Retry-After and records the usage of its streamed answer (include_usage)", async () => {
    const conv = await createConversationFor(user);
    const before = peer.requests.length;
    const greeting = `Hello there ${randomUUID().slice(0, 8)}`;
    const ofThisTurn = (r: { messages: { role: string; content: unknown }[] }) =>
      r.messages.some((m) => m.role === "user" && JSON.stringify(m.content).includes(greeting));
    peer.failNext(1, { status: 429, retryAfter: 1 }, ofThisTurn);
    const { run } = await postMessage(user.id, conv, { content: greeting, clientMessageId: randomUUID() });
    const done = await waitFor(
      async () => {
        const r = await getDb().run.findUniqueOrThrow({ where: { id: run.id } });
        return r.status === "succeeded" || r.status === "failed" ? r : null;
      },
      30_000,
      "chat run",
    );
    expect(done.status).toBe("succeeded");
    // Only this turn's requests (the worker may run other rows' work against the same peer).
    const sent = peer.requests.slice(before).filter(ofThisTurn);
    expect(sent.map((r) => r.outcome)).toEqual(["429", "ok"]);
    expect(sent[1].streamOptions).toEqual({ include_usage: true });
    expect(done.modelRequests).toBe(2);
    expect(done.inputTokens).toBeGreaterThan(0);
    expect(done.outputTokens).toBeGreaterThan(0);
    expect(done.costUsd).toBeCloseTo((done.inputTokens * 2 + done.outputTokens * 8) / 1e6, 12);
  });
});
