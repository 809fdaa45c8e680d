import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Client } from "@langchain/langgraph-sdk";
import * as keysRoute from "@/app/api/keys/route";
import * as keyRoute from "@/app/api/keys/[id]/route";
import * as threadsRoute from "@/app/api/ap/threads/route";
import * as searchRoute from "@/app/api/ap/threads/search/route";
import * as threadRoute from "@/app/api/ap/threads/[id]/route";
import * as runsRoute from "@/app/api/ap/threads/[id]/runs/route";
import * as runRoute from "@/app/api/ap/threads/[id]/runs/[rid]/route";
import * as cancelRoute from "@/app/api/ap/threads/[id]/runs/[rid]/cancel/route";
import * as joinRoute from "@/app/api/ap/threads/[id]/runs/[rid]/join/route";
import * as stateRoute from "@/app/api/ap/threads/[id]/state/route";
import { randomUUID } from "node:crypto";
import * as tasksRoute from "@/app/api/tasks/route";
import * as taskRoute from "@/app/api/tasks/[id]/route";
import { getDb } from "@/lib/db/client";
import { listTasks } from "@/lib/tasks/queries";
import {
  apiKeyFor,
  call,
  signUp,
  startWorkerProcess,
  stopWorkers,
  waitFor,
  type TestUser,
  type WorkerProc,
} from "@/tests/helpers";
import { serveRoutes } from "@/tests/route-server";

let server: Awaited<ReturnType<typeof serveRoutes>>;
let worker: WorkerProc;
let alice: TestUser;
let aliceKey: string;
let client: Client;

async function newKey(user: TestUser, name = "supervisor"): Promise<{ id: string; key: string }> {
  return apiKeyFor(user, name);
}

const ask = (content: string) => ({ input: { messages: [{ role: "user", content }] } });

beforeAll(async () => {
  server = await serveRoutes([
    { path: "/api/ap/threads", methods: { POST: threadsRoute.POST } },
    { path: "/api/ap/threads/search", methods: { POST: searchRoute.POST } },
    { path: "/api/ap/threads/:id", methods: { GET: threadRoute.GET } },
    { path: "/api/ap/threads/:id/runs", methods: { POST: runsRoute.POST, GET: runsRoute.GET } },
    { path: "/api/ap/threads/:id/runs/:rid", methods: { GET: runRoute.GET } },
    { path: "/api/ap/threads/:id/runs/:rid/cancel", methods: { POST: cancelRoute.POST } },
    { path: "/api/ap/threads/:id/runs/:rid/join", methods: { GET: joinRoute.GET } },
    { path: "/api/ap/threads/:id/state", methods: { GET: stateRoute.GET } },
  ]);
  // One worker, paced: a run stays in progress long enough for the interrupt and cancel cases.
  worker = startWorkerProcess({ HERALD_RESEARCH_STEPS: "3", HERALD_RESEARCH_STEP_MS: "1500" });
  alice = await signUp("ApAlice");
  aliceKey = (await newKey(alice)).key;
  client = new Client({ apiUrl: `${server.url}/api/ap`, apiKey: aliceKey });
});
afterAll(async () => {
  await stopWorkers(worker);
  await server?.close();
});

describe("Herald as an Agent Protocol server, driven by @langchain/langgraph-sdk", () => {
  it("thread → run → success; the thread state's last message is the report, and the task is in the account's sheet", async () => {
    const thread = await client.threads.create({ metadata: { supervisor_key: "t-1" } });
    const run = await client.runs.create(thread.thread_id, "research", ask("research heat pumps in Norway"));
    expect(["pending", "running"]).toContain(run.status);
    const done = await waitFor(
      async () => {
        const r = await client.runs.get(thread.thread_id, run.run_id);
        return r.status === "success" ? r : null;
      },
      30_000,
      "run success",
    );
    expect(done.run_id).toBe(run.run_id);
    const state = await client.threads.getState<{ messages: { type: string; content: string }[] }>(thread.thread_id);
    const last = state.values.messages.at(-1)!;
    expect(last.type).toBe("ai");
    expect(last.content).toMatch(/^# Heat pumps in Norway\n/); // titled by the topic, not the request
    expect(state.values.messages[0]).toMatchObject({ type: "human", content: "research heat pumps in Norway" });
    const tasks = await listTasks(alice.id, { conversationId: thread.thread_id });
    expect(tasks.map((t) => t.status)).toEqual(["succeeded"]);
    expect(JSON.stringify(await client.threads.get(thread.thread_id))).not.toContain(aliceKey);
    // The supervisor finds its own thread again by metadata (its crash recovery).
    const found = await client.threads.search({ metadata: { supervisor_key: "t-1" } });
    expect(found.map((t) => t.thread_id)).toEqual([thread.thread_id]);
    // join answers the values once the run is over.
    const values = (await client.runs.join(thread.thread_id, run.run_id)) as { messages: unknown[] };
    expect(values.messages).toHaveLength(2);
  });

  it("interrupt: a new run on a busy thread hands its message to the same task; the older run reads interrupted", async () => {
    const thread = await client.threads.create();
    const first = await client.runs.create(thread.thread_id, "research", ask("research district heating"));
    // Busy: the default strategy refuses a second run.
    await expect(client.runs.create(thread.thread_id, "research", ask("again"))).rejects.toThrow(/409/);
    const second = await client.runs.create(thread.thread_id, "research", {
      ...ask("also cover costs"),
      multitaskStrategy: "interrupt",
    });
    const rows = await getDb().apRun.findMany({ where: { id: { in: [first.run_id, second.run_id] } } });
    expect(new Set(rows.map((r) => r.taskId)).size).toBe(1);
    expect((await client.runs.get(thread.thread_id, first.run_id)).status).toBe("interrupted");
    await waitFor(
      async () => (await client.runs.get(thread.thread_id, second.run_id)).status === "success",
      40_000,
      "second run success",
    );
    // The report works the instruction into its sections rather than quoting it: a research step took it.
    const steps = await getDb().taskStep.findMany({ where: { taskId: rows[0].taskId! } });
    expect(
      steps.some((s) => ((s.input as { updates?: string[] } | null)?.updates ?? []).includes("also cover costs")),
    ).toBe(true);
    const state = await client.threads.getState<{ messages: { type: string; content: string }[] }>(thread.thread_id);
    expect(state.values.messages.at(-1)!.content).not.toContain("also cover costs");
  });

  it("cancel stops the task; the run reads interrupted and the task cancelled", async () => {
    const thread = await client.threads.create();
    const run = await client.runs.create(thread.thread_id, "research", ask("research tidal power"));
    await client.runs.cancel(thread.thread_id, run.run_id);
    await waitFor(
      async () => (await client.runs.get(thread.thread_id, run.run_id)).status === "interrupted",
      30_000,
      "interrupted",
    );
    const [task] = await listTasks(alice.id, { conversationId: thread.thread_id });
    expect(task.status).toBe("cancelled");
  });

  it("without a valid key every route answers 401; a revoked key is refused at once; another account's thread is 404", async () => {
    const thread = await client.threads.create();
    const attempts: Record<string, string>[] = [
      {},
      { "x-api-key": "hrld_not-a-key" },
      { authorization: "Bearer nope" },
    ];
    for (const headers of attempts) {
      const r = await fetch(`${server.url}/api/ap/threads/${thread.thread_id}`, { headers });
      expect(r.status).toBe(401);
      expect(((await r.json()) as { error: { code: string } }).error.code).toBe("unauthorized");
    }
    // Bearer works like x-api-key.
    expect(
      (
        await fetch(`${server.url}/api/ap/threads/${thread.thread_id}`, {
          headers: { authorization: `Bearer ${aliceKey}` },
        })
      ).status,
    ).toBe(200);

    const bob = await signUp("ApBob");
    const bobKey = await newKey(bob);
    const bobClient = new Client({ apiUrl: `${server.url}/api/ap`, apiKey: bobKey.key });
    await expect(bobClient.threads.get(thread.thread_id)).rejects.toThrow(/404/);
    await expect(bobClient.runs.create(thread.thread_id, "research", ask("steal"))).rejects.toThrow(/404/);
    expect(await bobClient.threads.search({})).toEqual([]);

    const del = await call(keyRoute.DELETE, { user: bob, params: { id: bobKey.id } });
    expect(del.status).toBe(204);
    await expect(bobClient.threads.search({})).rejects.toThrow(/401/);
    // Bob cannot revoke Alice's key.
    const aliceKeys = await call(keysRoute.GET, { user: alice });
    const victim = (aliceKeys.json as { keys: { id: string }[] }).keys[0].id;
    expect((await call(keyRoute.DELETE, { user: bob, params: { id: victim } })).status).toBe(404);
  });

  it("keys are listed without their secret; bad input is a 400 naming the field", async () => {
    const list = await call(keysRoute.GET, { user: alice });
    expect(JSON.stringify(list.json)).not.toContain(aliceKey);
    expect((list.json as { keys: { prefix: string }[] }).keys[0].prefix).toBe(aliceKey.slice(0, 11));
    const bad = await call(keysRoute.POST, { user: alice, body: { name: "" } });
    expect(bad.status).toBe(400);
    expect(bad.json.error.field).toBe("name");
    const thread = await client.threads.create();
    const r = await fetch(`${server.url}/api/ap/threads/${thread.thread_id}/runs`, {
      method: "POST",
      headers: { "x-api-key": aliceKey, "content-type": "application/json" },
      body: JSON.stringify({ assistant_id: "other", input: { messages: [{ role: "user", content: "x" }] } }),
    });
    expect(r.status).toBe(404);
    const r2 = await fetch(`${server.url}/api/ap/threads/${thread.thread_id}/runs`, {
      method: "POST",
      headers: { "x-api-key": aliceKey, "content-type": "application/json" },
      body: JSON.stringify({ assistant_id: "research", input: { messages: [] } }),
    });
    expect(r2.status).toBe(400);
    expect(((await r2.json()) as { error: { field: string } }).error.field).toBe("input.messages");
  });

  it("Herald delegating to Herald: the agent driver, pointed at this server's /api/ap, gets the remote report as its final body", async () => {
    const carol = await signUp("ApCarol");
    const dave = await signUp("ApDave");
    const daveKey = (await newKey(dave, "carol's Herald")).key;
    process.env.HERALD_REMOTE_AGENTS = JSON.stringify([
      {
        name: "herald",
        description: "Another Herald: durable research reports",
        url: `${server.url}/api/ap`,
        assistantId: "research",
        headersFromEnv: { "x-api-key": "HERALD_TEST_AP_KEY" },
      },
    ]);
    process.env.HERALD_TEST_AP_KEY = daveKey;
    // Every worker must know the remote agents (a worker without the configuration would claim the task and
    // fail it for an unknown driver): this one replaces the file's shared worker.
    await stopWorkers(worker);
    const delegating = startWorkerProcess({ HERALD_RESEARCH_STEPS: "2", HERALD_RESEARCH_STEP_MS: "0" });
    try {
      const conv = await getDb().conversation.create({ data: { ownerId: carol.id, title: "delegation" } });
      const r = await call(tasksRoute.POST, {
        user: carol,
        body: {
          conversationId: conv.id,
          title: "Wind power in Denmark",
          prompt: "research wind power in Denmark",
          driver: "agent:herald",
          clientRequestId: randomUUID(),
        },
      });
      expect(r.status).toBe(202);
      const id = r.json.task.id as string;
      const done = await waitFor(
        async () => {
          const t = await getDb().task.findUniqueOrThrow({ where: { id } });
          return ["succeeded", "failed"].includes(t.status) ? t : null;
        },
        60_000,
        "delegated task settles",
      );
      expect({ status: done.status, error: done.error }).toEqual({ status: "succeeded", error: null });
      const body = await getDb().publication.findFirstOrThrow({ where: { taskId: id, partial: false } });
      expect(body.content).toMatch(/^# Wind power in Denmark\n/);
      // On the serving side it is Dave's task, in Dave's sheet; Carol's key material never reached Carol's side.
      const daveTasks = await listTasks(dave.id);
      expect(daveTasks.map((t) => t.status)).toEqual(["succeeded"]);
      expect(JSON.stringify(await call(taskRoute.GET, { user: carol, params: { id } }))).not.toContain(daveKey);
    } finally {
      await stopWorkers(delegating);
      delete process.env.HERALD_REMOTE_AGENTS;
      delete process.env.HERALD_TEST_AP_KEY;
    }
  });
});
