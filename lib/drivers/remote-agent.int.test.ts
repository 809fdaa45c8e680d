import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { randomUUID } from "node:crypto";
import { Client } from "@langchain/langgraph-sdk";
import { getDb } from "@/lib/db/client";
import * as tasksRoute from "@/app/api/tasks/route";
import * as taskRoute from "@/app/api/tasks/[id]/route";
import * as cancelRoute from "@/app/api/tasks/[id]/cancel/route";
import * as updateRoute from "@/app/api/tasks/[id]/update/route";
import * as inputRoute from "@/app/api/tasks/[id]/input/route";
import * as messagesRoute from "@/app/api/conversations/[id]/messages/route";
import * as workChoicesRoute from "@/app/api/work-choices/route";
import { ERROR_CATEGORIES } from "@/lib/errors/categories";
import { taskProjection } from "@/lib/agent/task-projection";
import { buildEventSnapshot } from "@/lib/notify/event";
import { narrationPrompt } from "@/lib/notify/deliver";
import { startLangGraphPeer, type LangGraphPeer } from "@/tests/langgraph-peer";
import {
  call,
  createConversationFor,
  signUp,
  startWorkerProcess,
  stopWorkers,
  waitFor,
  type TestUser,
  type WorkerProc,
} from "@/tests/helpers";
import { createAgentDriver } from "./remote-agent";
import { configuredAgentDrivers, parseRemoteAgents } from "./remote-agent-config";
import { setUpDrivers } from "./setup";

/**
 * The agent-protocol driver against a real LangGraph Platform API server
 * (`langgraphjs dev` serving tests/langgraph/graph.ts) and real worker
 * processes. The server takes about 5 s to start; the file starts it once.
 */
const SECRET = `agent-secret-${randomUUID()}`;
// Failed polls back off from 200 ms, so degraded tracking shows within a second or two.
const FAST_RETRY = { HERALD_TASK_RETRY_MS: "200" };
let peer: LangGraphPeer;
let remote: Client;
const workers: WorkerProc[] = [];
let u: TestUser;

const agentsJson = (url: string) =>
  JSON.stringify([
    {
      name: "peer",
      label: "Patent agent",
      runTimeoutSeconds: 1800,
      description: "Patent landscape agent: searches patents and prior art",
      url,
      assistantId: "herald-test",
      headersFromEnv: { "x-herald-secret": "HERALD_TEST_AGENT_SECRET" },
    },
  ]);

beforeAll(async () => {
  const t0 = Date.now();
  peer = await startLangGraphPeer();
  console.log(`langgraphjs dev ready in ${Date.now() - t0} ms`);
  process.env.HERALD_REMOTE_AGENTS = agentsJson(peer.url);
  process.env.HERALD_TEST_AGENT_SECRET = SECRET;
  // This process serves the API (updates ask the driver whether it takes them): set up with the agent configured.
  await setUpDrivers();
  remote = new Client({ apiUrl: peer.url, apiKey: null });
  workers.push(startWorkerProcess(FAST_RETRY));
  u = await signUp("Agents");
}, 90_000);

afterAll(async () => {
  await stopWorkers(...workers);
  await peer?.stop();
  delete process.env.HERALD_REMOTE_AGENTS;
  delete process.env.HERALD_TEST_AGENT_SECRET;
});

const row = (id: string) => getDb().task.findUniqueOrThrow({ where: { id } });

async function launch(prompt: string, title = "Patent landscape") {
  const conv = await createConversationFor(u);
  const r = await call(tasksRoute.POST, {
    user: u,
    body: { conversationId: conv, title, prompt, driver: "agent:peer", clientRequestId: randomUUID() },
  });
  expect(r.status).toBe(202);
  return { id: r.json.task.id as string, conv };
}

const settled = (id: string, status: string, timeoutMs = 20_000) =>
  waitFor(
    async () => {
      const r = await row(id);
      return r.status === status ? r : null;
    },
    timeoutMs,
    `task ${status}`,
  );

async function remoteOf(taskId: string) {
  const threads = await remote.threads.search({ metadata: { herald_task_id: taskId }, limit: 10 });
  // Oldest first (the dev server's list order is insertion order; the protocol names none).
  const runs =
    threads.length === 1
      ? (await remote.runs.list(threads[0].thread_id)).sort((a, b) => a.run_id.localeCompare(b.run_id))
      : [];
  return { threads, runs };
}

const bodies = (taskId: string) => getDb().publication.findMany({ where: { taskId }, orderBy: { version: "asc" } });

describe("agent-protocol driver against langgraphjs dev", () => {
  it("success: one thread and one run, the final body is the graph's last message", async () => {
    const { id } = await launch("map the solid-state battery patents");
    const done = await settled(id, "succeeded");
    // Queued until a poll saw the remote run start (reportsStart), then started like any task.
    expect(done.startedAt).not.toBeNull();
    expect(done.startedAt!.getTime()).toBeLessThanOrEqual(done.completedAt!.getTime());
    expect((await bodies(id)).map((b) => [b.partial, b.content])).toEqual([
      [false, "Report: map the solid-state battery patents"],
    ]);
    const { threads, runs } = await remoteOf(id);
    expect(threads).toHaveLength(1);
    expect(runs.map((r) => r.status)).toEqual(["success"]);
    expect((await row(id)).remoteRef).toBe(threads[0].thread_id);
  });

  it("failure: a failed run fails the task with a category, the remote's words only in the log", async () => {
    const { id } = await launch("this one will [fail]");
    const r = await settled(id, "failed");
    expect(r.error).toBe(ERROR_CATEGORIES.remote_failed);
    expect(await bodies(id)).toHaveLength(0);
    // The graph's own error is in the worker's log, next to the task id.
    await waitFor(
      async () =>
        workers.some(
          (w) =>
            w.output().includes(`[tasks ${id}] remote_failed`) &&
            w.output().includes("the deterministic graph was told to fail"),
        ),
      5_000,
      "logged",
    );
  });

  it("an empty or non-text reply is a broken contract: failed as protocol, nothing published", async () => {
    const empty = await launch("reply [empty]");
    const parts = await launch("reply [parts]");
    for (const t of [empty, parts]) {
      const r = await settled(t.id, "failed");
      expect(r.error).toBe(ERROR_CATEGORIES.protocol);
      expect(await bodies(t.id)).toHaveLength(0);
    }
  });

  it("cancel: accepted by the remote (run interrupted), then the task is cancelled", async () => {
    const { id } = await launch("long work [slow:30000]");
    await waitFor(async () => (await remoteOf(id)).runs[0]?.status === "running", 20_000, "remote run running");
    expect((await call(cancelRoute.POST, { user: u, params: { id } })).status).toBe(200);
    await settled(id, "cancelled");
    expect((await remoteOf(id)).runs.map((r) => r.status)).toEqual(["interrupted"]);
  });

  it("cancel after the remote already finished: the driver reports how it ended", async () => {
    const thread = await remote.threads.create({ metadata: { herald_task_id: `direct-${randomUUID()}` } });
    const run = await remote.runs.create(thread.thread_id, "herald-test", {
      input: { messages: [{ role: "user", content: "quick" }] },
    });
    await remote.runs.join(thread.thread_id, run.run_id);
    const driver = createAgentDriver({ name: "peer", url: peer.url, assistantId: "herald-test", headers: {} });
    const task = { id: "t", remoteRef: thread.thread_id } as Parameters<typeof driver.cancel>[0];
    expect(await driver.cancel(task, new AbortController().signal)).toEqual({ status: "succeeded" });
    expect((await remote.runs.get(thread.thread_id, run.run_id)).status).toBe("success");
  });

  it("a step or answer retried after a crash before its commit adopts the run its first attempt created", async () => {
    const driver = createAgentDriver({ name: "peer", url: peer.url, assistantId: "herald-test", headers: {} });
    const signal = new AbortController().signal;
    const base = {
      id: `direct-${randomUUID()}`,
      prompt: "long [slow:30000]",
      pendingUpdates: [],
      driverData: {},
    } as unknown as Parameters<typeof driver.cancel>[0];
    const { remoteRef } = await driver.submit(base, signal);
    // The same submit again (the handle was never stored): the thread and run it already made.
    expect((await driver.submit(base, signal)).remoteRef).toBe(remoteRef);
    const task = { ...base, remoteRef, pendingUpdates: ["then [ask]"] };
    const step = () =>
      driver.step({ task, pendingUpdates: task.pendingUpdates, steps: [], model: undefined as never, signal });
    expect(await step()).toMatchObject({ consumedUpdates: 1, driverState: { updatesSent: 1 } });
    // Not committed, so the row still says 0 updates sent: the retry must not send it again.
    expect(await step()).toMatchObject({ consumedUpdates: 1, driverState: { updatesSent: 1 } });
    expect((await remoteOf(base.id)).runs).toHaveLength(2);

    const waiting = { ...task, pendingUpdates: [] };
    await waitFor(
      async () =>
        (await driver.step({ task: waiting, pendingUpdates: [], steps: [], model: undefined as never, signal }))
          .status === "input_required",
      20_000,
      "interrupted",
    );
    await driver.answer!(waiting, "Asia", signal);
    await driver.answer!(waiting, "Asia", signal);
    expect((await remoteOf(base.id)).runs).toHaveLength(3);
    const done = await waitFor(
      async () => {
        const o = await driver.step({
          task: waiting,
          pendingUpdates: [],
          steps: [],
          model: undefined as never,
          signal,
        });
        return o.finished ? o : null;
      },
      20_000,
      "finished",
    );
    expect(done.publish?.content).toBe("Report for Asia: then [ask]");
  });

  it("update: a new run on the same thread interrupts the old one; the task keeps its id", async () => {
    const { id } = await launch("first brief [slow:30000]");
    await waitFor(async () => (await remoteOf(id)).runs[0]?.status === "running", 20_000, "remote run running");
    const r = await call(updateRoute.POST, { user: u, params: { id }, body: { message: "focus on Europe instead" } });
    expect(r.status).toBe(200);
    expect(r.json.task.id).toBe(id);
    await settled(id, "succeeded");
    expect((await bodies(id)).map((b) => b.content)).toEqual(["Report: focus on Europe instead"]);
    const { threads, runs } = await remoteOf(id);
    expect(threads).toHaveLength(1);
    // The first run was interrupted by the update's run, which succeeded.
    expect(runs.map((x) => [x.status, x.multitask_strategy])).toEqual([
      ["interrupted", "reject"],
      ["success", "interrupt"],
    ]);
    expect((await row(id)).driverData).toMatchObject({ updatesSent: 1 });
  });

  it("input: an interrupt() becomes input_required; the answer resumes the graph", async () => {
    const { id } = await launch("region report [ask]");
    const waiting = await settled(id, "input_required");
    expect(waiting.inputRequest).toEqual({ question: "Which region should the report cover?" });
    expect((await call(inputRoute.POST, { user: u, params: { id }, body: { response: "Europe" } })).status).toBe(200);
    await settled(id, "succeeded");
    expect((await bodies(id)).map((b) => b.content)).toEqual(["Report for Europe: region report [ask]"]);
    expect((await remoteOf(id)).runs).toHaveLength(2);
  });

  it(
    "worker SIGKILLed between the remote create and the stored handle: the next worker adopts the run, exactly one remote run; a cancel in that window finds the run",
    { timeout: 60_000 },
    async () => {
      await stopWorkers(...workers.splice(0));
      const crashing = startWorkerProcess({
        ...FAST_RETRY,
        HERALD_TEST_AGENT_PAUSE_AFTER_CREATE_MS: "60000",
        HERALD_TASK_LEASE_MS: "2000",
      });
      const { id } = await launch("adopt me");
      const unstored = await launch("cancel me [slow:30000]");
      for (const t of [id, unstored.id]) {
        await waitFor(
          async () => crashing.output().includes(`test pause after create ${t}`),
          30_000,
          "created, handle not stored",
        );
        const mid = await row(t);
        expect([mid.status, mid.remoteRef]).toEqual(["submitted", null]);
        expect((await remoteOf(t)).runs).toHaveLength(1);
      }
      // No handle stored, yet the cancel reaches the remote run through the thread's herald_task_id.
      expect((await call(cancelRoute.POST, { user: u, params: { id: unstored.id } })).status).toBe(200);
      await settled(unstored.id, "cancelled");
      expect((await remoteOf(unstored.id)).runs.map((r) => r.status)).toEqual(["interrupted"]);
      // Booting while the paused worker still renews its lease: it cannot claim the task before the kill.
      workers.push(startWorkerProcess(FAST_RETRY));
      crashing.child.kill("SIGKILL");
      await crashing.exited;
      await settled(id, "succeeded", 30_000);
      const { threads, runs } = await remoteOf(id);
      expect(threads).toHaveLength(1);
      expect(runs.map((r) => r.status)).toEqual(["success"]);
      expect((await bodies(id)).map((b) => b.content)).toEqual(["Report: adopt me"]);
    },
  );

  it("from the chat: the start tool routes a request matching the agent's description to it (offline model)", async () => {
    const conv = await createConversationFor(u);
    const text = "research the prior art on sodium battery patents";
    const posted = await call(messagesRoute.POST, {
      user: u,
      params: { id: conv },
      body: { content: text, clientMessageId: randomUUID() },
    });
    expect(posted.status).toBeLessThan(300);
    const task = await waitFor(
      () => getDb().task.findFirst({ where: { conversationId: conv } }),
      30_000,
      "task started from chat",
    );
    expect(task.driver).toBe("agent:peer");
    await settled(task.id, "succeeded");
    expect((await bodies(task.id)).map((b) => b.content)).toEqual([`Report: ${text}`]);
  });

  it("remote ids, the url and header secrets never reach the public task, the feed, messages or model input", async () => {
    const { id, conv } = await launch("leak check");
    const done = await settled(id, "succeeded");
    const forbidden = [done.remoteRef!, peer.url, new URL(peer.url).host, SECRET, "herald-test"];
    const check = (what: string, value: unknown) => {
      const text = JSON.stringify(value);
      for (const s of forbidden) expect(text.includes(s), `${what} leaks ${s}`).toBe(false);
    };
    check("task API", (await call(taskRoute.GET, { user: u, params: { id } })).json);
    check("task list API", (await call(tasksRoute.GET, { user: u, path: "/api/tasks?scope=all" })).json);
    check("messages API", (await call(messagesRoute.GET, { user: u, params: { id: conv } })).json);
    check(
      "feed events",
      (await getDb().event.findMany({ where: { ownerId: u.id } })).map((e) => e.payload),
    );
    check("task projection (model input)", await taskProjection(u.id, conv));
    const snapshot = buildEventSnapshot(done, null);
    expect(snapshot).not.toBeNull();
    check("notification prompt (model input)", narrationPrompt(snapshot!));
    // The secret did reach the remote: the dev server copies request headers into run metadata.
    const state = await remote.threads.getState(done.remoteRef!);
    expect(JSON.stringify(state.metadata)).toContain(SECRET);
  });

  it(
    "streaming relay: the graph's custom progress lines become bounded, rate-limited progress messages while the run works",
    { timeout: 60_000 },
    async () => {
      const { id } = await launch("stream me [slow:14000] [progress]");
      const done = await settled(id, "succeeded", 45_000);
      const progress = (
        await getDb().message.findMany({ where: { taskId: id, kind: "progress" }, orderBy: { seq: "asc" } })
      ).map((m) => m.content);
      // Relayed from the stream (the poll alone has no text), at most one per 10 s of the run (≥ 14 s; longer on a loaded machine).
      const ranMs = done.completedAt!.getTime() - done.startedAt!.getTime();
      expect(progress.length).toBeGreaterThanOrEqual(1);
      expect(progress.length).toBeLessThanOrEqual(Math.ceil(ranMs / 10_000));
      for (const p of progress) expect(p).toMatch(/^Step \d+ of 56$/);
      expect(done.driverData).toMatchObject({ relayedAt: expect.any(Number) });
      expect((done.driverData as { stream?: unknown }).stream).toBeUndefined();
      // The sheet's remote timing: no operator run limit for this agent, the current poll interval.
      const pub = (await call(taskRoute.GET, { user: u, params: { id } })).json.task;
      expect(pub.remote).toEqual({ runTimeoutSeconds: 1800, pollIntervalSeconds: expect.any(Number) });
    },
  );

  it("from the chat with Work with: the pick sends the task to the agent even when the text matches no description", async () => {
    const choices = (await call(workChoicesRoute.GET, { user: u })).json.choices as {
      id: string;
      label: string | null;
    }[];
    expect(choices.map((c) => c.label)).toEqual([null, "Patent agent"]);
    const conv = await createConversationFor(u);
    const text = "research the history of lighthouses";
    const posted = await call(messagesRoute.POST, {
      user: u,
      params: { id: conv },
      body: { content: text, clientMessageId: randomUUID(), workWith: choices[1].id },
    });
    expect(posted.status).toBe(202);
    const task = await waitFor(
      () => getDb().task.findFirst({ where: { conversationId: conv } }),
      30_000,
      "task started from chat",
    );
    expect(task.driver).toBe("agent:peer");
    await settled(task.id, "succeeded");
  });

  // Last: it stops the peer. (langgraphjs dev keeps its state in memory; a restarted one has forgotten every thread,
  // which the poll reports as a failure of its own: see agent.test.ts.)
  it("remote down while polling: the task stays running and tracking is reported degraded after 3 failed polls", async () => {
    const { id } = await launch("outlive the remote [slow:60000]");
    await waitFor(async () => (await remoteOf(id)).runs[0]?.status === "running", 20_000, "remote run running");
    const before = await settled(id, "running");
    await peer.stop();
    const degraded = await waitFor(
      async () => {
        const r = await row(id);
        // The degraded event commits just after the third failed poll is released.
        return r.consecutiveErrors >= 3 && r.eventVersion > before.eventVersion ? r : null;
      },
      20_000,
      "3 failed polls and the degraded event",
    );
    expect(degraded.status).toBe("running");
    expect(degraded.completedAt).toBeNull();
    expect(degraded.error).toBe(ERROR_CATEGORIES.unreachable);
  });
});

describe("HERALD_REMOTE_AGENTS", () => {
  it("valid entries become agent:<name>; bad ones and missing secrets are logged by name only and skipped", async () => {
    const logged: string[] = [];
    const orig = console.error;
    console.error = (...a: unknown[]) => void logged.push(a.map(String).join(" "));
    try {
      const raw = JSON.stringify([
        {
          name: "ok",
          description: "d",
          url: "http://127.0.0.1:1",
          assistantId: "g",
          headersFromEnv: { "x-api-key": "SET_VAR" },
        },
        {
          name: "nosecret",
          description: "d",
          url: "http://127.0.0.1:1",
          assistantId: "g",
          headersFromEnv: { "x-api-key": "UNSET_VAR" },
        },
        { name: "bad url", description: "d", url: "ftp://x", assistantId: "g" },
        { name: "ok", description: "duplicate", url: "http://127.0.0.1:1", assistantId: "g" },
      ]);
      const parsed = parseRemoteAgents(raw, (n) => (n === "SET_VAR" ? "hunter2" : undefined));
      expect(parsed).toEqual([
        {
          name: "ok",
          description: "d",
          url: "http://127.0.0.1:1",
          assistantId: "g",
          headers: { "x-api-key": "hunter2" },
        },
      ]);
      expect(logged.join("\n")).toContain("UNSET_VAR");
      expect(logged.join("\n")).not.toContain("hunter2");
      expect(logged).toHaveLength(3);
      expect(parseRemoteAgents("not json and not a file")).toEqual([]);
      expect((await configuredAgentDrivers(agentsJson("http://127.0.0.1:1"))).map(([name]) => name)).toEqual([
        "agent:peer",
      ]);
    } finally {
      console.error = orig;
    }
  });
});
