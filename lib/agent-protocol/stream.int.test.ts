import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Client } from "@langchain/langgraph-sdk";
import * as threadsRoute from "@/app/api/ap/threads/route";
import * as runsRoute from "@/app/api/ap/threads/[id]/runs/route";
import * as runStreamRoute from "@/app/api/ap/threads/[id]/runs/stream/route";
import * as runRoute from "@/app/api/ap/threads/[id]/runs/[rid]/route";
import * as cancelRoute from "@/app/api/ap/threads/[id]/runs/[rid]/cancel/route";
import * as joinStreamRoute from "@/app/api/ap/threads/[id]/runs/[rid]/stream/route";
import * as stateRoute from "@/app/api/ap/threads/[id]/state/route";
import * as historyRoute from "@/app/api/ap/threads/[id]/history/route";
import * as assistantsSearchRoute from "@/app/api/ap/assistants/search/route";
import * as assistantRoute from "@/app/api/ap/assistants/[id]/route";
import * as assistantSchemasRoute from "@/app/api/ap/assistants/[id]/schemas/route";
import { MAX_STREAMS_PER_ACCOUNT, openRunStream } from "@/lib/agent-protocol/stream-run";
import { getDb } from "@/lib/db/client";
import { db } from "@/lib/db/kysely";
import { sql } from "kysely";
import { openFeed } from "@/lib/events/feed";
import { pickFreePort } from "@/lib/util/free-port";
import {
  apiKeyFor,
  signUp,
  startWorkerProcess,
  stopWorkers,
  waitFor,
  waitForBeat,
  type TestUser,
  type WorkerProc,
} from "@/tests/helpers";
import { serveRoutes } from "@/tests/route-server";

let server: Awaited<ReturnType<typeof serveRoutes>>;
let worker: WorkerProc;
let client: Client;
let key: string;
let user: TestUser;

const ask = (content: string) => ({ input: { messages: [{ role: "user", content }] } });
type Part = { id?: string; event: string; data: unknown };

async function collect(gen: AsyncIterable<Part>, onPart?: (p: Part) => Promise<void> | void): Promise<Part[]> {
  const parts: Part[] = [];
  for await (const p of gen) {
    parts.push(p);
    await onPart?.(p);
  }
  return parts;
}

beforeAll(async () => {
  server = await serveRoutes([
    { path: "/api/ap/threads", methods: { POST: threadsRoute.POST } },
    { path: "/api/ap/threads/:id/runs/stream", methods: { POST: runStreamRoute.POST } },
    { path: "/api/ap/threads/:id/runs", methods: { POST: runsRoute.POST, GET: runsRoute.GET } },
    { path: "/api/ap/threads/:id/runs/:rid", methods: { GET: runRoute.GET } },
    { path: "/api/ap/threads/:id/runs/:rid/cancel", methods: { POST: cancelRoute.POST } },
    { path: "/api/ap/threads/:id/runs/:rid/stream", methods: { GET: joinStreamRoute.GET } },
    { path: "/api/ap/threads/:id/state", methods: { GET: stateRoute.GET } },
    { path: "/api/ap/threads/:id/history", methods: { GET: historyRoute.GET, POST: historyRoute.POST } },
    { path: "/api/ap/assistants/search", methods: { POST: assistantsSearchRoute.POST } },
    { path: "/api/ap/assistants/:id/schemas", methods: { GET: assistantSchemasRoute.GET } },
    { path: "/api/ap/assistants/:id", methods: { GET: assistantRoute.GET } },
  ]);
  // Paced so a stream can be joined, resumed and cancelled while the run works. No web search: nothing leaves the machine.
  worker = startWorkerProcess({
    HERALD_RESEARCH_STEPS: "3",
    HERALD_RESEARCH_STEP_MS: "700",
    HERALD_SEARCH_PROVIDER: "none",
  });
  await waitForBeat(worker); // it beats once listening: one of the LISTEN connections counted below
  user = await signUp("ApStream");
  key = (await apiKeyFor(user)).key;
  client = new Client({ apiUrl: `${server.url}/api/ap`, apiKey: key });
});
afterAll(async () => {
  await stopWorkers(worker).catch(() => {});
  await server?.close();
});

describe("Agent Protocol discovery and history", () => {
  it("assistants.search and assistants.get describe research with its schemas; an unknown one is 404", async () => {
    const found = await client.assistants.search({});
    expect(found.map((a) => a.assistant_id)).toEqual(["research"]);
    expect(found[0]).toMatchObject({ graph_id: "research", name: "research", version: 1, config: {}, metadata: {} });
    expect(typeof found[0].created_at).toBe("string");
    expect(await client.assistants.search({ graphId: "other" })).toEqual([]);
    const a = await client.assistants.get("research");
    expect(a.assistant_id).toBe("research");
    const schemas = await client.assistants.getSchemas("research");
    expect(schemas.input_schema).toMatchObject({ type: "object", required: ["messages"] });
    expect(schemas.output_schema).toMatchObject({ type: "object" });
    await expect(client.assistants.get("nope")).rejects.toThrow(/404/);
  });

  it("threads.getHistory: the thread's states newest first, paged with limit and before", async () => {
    const thread = await client.threads.create();
    const run = await client.runs.create(thread.thread_id, "research", ask("research peat bogs"));
    await waitFor(
      async () => (await client.runs.get(thread.thread_id, run.run_id)).status === "success",
      40_000,
      "run success",
    );
    const history = await client.threads.getHistory<{ messages: { type: string; content: string }[] }>(
      thread.thread_id,
    );
    expect(history).toHaveLength(2);
    expect(history[0].values.messages.map((m) => m.type)).toEqual(["human", "ai"]);
    expect(history[0].values.messages[1].content).toMatch(/^# Peat bogs\n/); // titled by the topic, not the request
    expect(history[1].values.messages.map((m) => m.type)).toEqual(["human"]);
    expect(history[0].parent_checkpoint?.checkpoint_id).toBe(history[1].checkpoint.checkpoint_id);
    expect(history[1].checkpoint.checkpoint_id).toBe(run.run_id);
    // The newest state is the thread state.
    const state = await client.threads.getState(thread.thread_id);
    expect(state.checkpoint.checkpoint_id).toBe(history[0].checkpoint.checkpoint_id);
    const page1 = await client.threads.getHistory(thread.thread_id, { limit: 1 });
    expect(page1.map((s) => s.checkpoint.checkpoint_id)).toEqual([history[0].checkpoint.checkpoint_id]);
    const page2 = await client.threads.getHistory(thread.thread_id, {
      limit: 1,
      before: { configurable: { checkpoint_id: page1[0].checkpoint.checkpoint_id } },
    });
    expect(page2.map((s) => s.checkpoint.checkpoint_id)).toEqual([run.run_id]);
    // GET works too; another account's thread is 404.
    const r = await fetch(`${server.url}/api/ap/threads/${thread.thread_id}/history?limit=1`, {
      headers: { "x-api-key": key },
    });
    expect(((await r.json()) as unknown[]).length).toBe(1);
    const other = await apiKeyFor(await signUp("ApStreamOther"));
    const bob = new Client({ apiUrl: `${server.url}/api/ap`, apiKey: other.key });
    await expect(bob.threads.getHistory(thread.thread_id)).rejects.toThrow(/404/);
  });
});

describe("Agent Protocol streaming", () => {
  it("runs.stream in every mode: metadata first, progress as custom and updates, the report as messages and values, then the end", async () => {
    const thread = await client.threads.create();
    const parts = await collect(
      client.runs.stream(thread.thread_id, "research", {
        ...ask("research salt marshes"),
        streamMode: ["values", "updates", "messages-tuple", "custom"],
      }) as AsyncIterable<Part>,
    );
    const events = parts.map((p) => p.event);
    expect(events[0]).toBe("metadata");
    const runId = (parts[0].data as { run_id: string }).run_id;
    expect(parts[0].data).toEqual({ run_id: runId, attempt: 1 });
    expect(events[1]).toBe("values");
    expect(parts[1].data).toEqual({
      messages: [expect.objectContaining({ type: "human", content: "research salt marshes" })],
    });
    expect(events).toContain("custom");
    expect(parts.find((p) => p.event === "custom")!.data).toMatchObject({ type: "progress", text: expect.any(String) });
    expect(events).toContain("updates");
    const tuple = parts.find((p) => p.event === "messages")!.data as [
      { type: string; content: string; id: string },
      { langgraph_node: string },
    ];
    expect(tuple[0]).toMatchObject({ type: "AIMessageChunk", content: expect.stringMatching(/^# .*salt marshes/i) });
    expect(tuple[1].langgraph_node).toBe("research");
    const last = parts.at(-1)!;
    expect(last.event).toBe("values");
    expect((last.data as { messages: { type: string }[] }).messages.map((m) => m.type)).toEqual(["human", "ai"]);
    expect(events).not.toContain("error");
    expect((await client.runs.get(thread.thread_id, runId)).status).toBe("success");
    // Ids increase and are unique: what Last-Event-ID names.
    const ids = parts.map((p) => p.id);
    expect(new Set(ids).size).toBe(ids.length);
  });

  it("joinStream mid-run replays what the run already emitted, follows it live, and resumes after Last-Event-ID", async () => {
    const thread = await client.threads.create();
    const run = await client.runs.create(thread.thread_id, "research", ask("research kelp forests"));
    const task = (await getDb().apRun.findUniqueOrThrow({ where: { id: run.run_id } })).taskId;
    // Mid-run: a progress line is already written and the report is not.
    await waitFor(
      async () => (await getDb().message.count({ where: { taskId: task, kind: "progress" } })) >= 1,
      30_000,
      "first progress",
    );
    const joined = await collect(
      client.runs.joinStream(thread.thread_id, run.run_id, { streamMode: ["custom", "values"] }) as AsyncIterable<Part>,
    );
    expect(joined[0]).toMatchObject({ event: "metadata", data: { run_id: run.run_id, attempt: 1 } });
    const progressLines = await getDb().message.count({ where: { taskId: task, kind: "progress" } });
    expect(joined.filter((p) => p.event === "custom")).toHaveLength(progressLines);
    expect(joined.at(-1)!.event).toBe("values");
    expect((await client.runs.get(thread.thread_id, run.run_id)).status).toBe("success");

    // Resume after the second progress line: exactly what came after it, nothing before.
    const customs = joined.filter((p) => p.event === "custom");
    const after = customs[1].id!;
    const resumed = await collect(
      client.runs.joinStream(thread.thread_id, run.run_id, {
        streamMode: ["custom", "values"],
        lastEventId: after,
      }) as AsyncIterable<Part>,
    );
    const from = joined.findIndex((p) => p.id === after);
    expect(resumed.map((p) => p.id)).toEqual(joined.slice(from + 1).map((p) => p.id));
  });

  it("cancel while streaming ends the stream without an error; the run reads interrupted", async () => {
    const thread = await client.threads.create();
    let runId = "";
    let cancelled = false;
    const parts = await collect(
      client.runs.stream(thread.thread_id, "research", {
        ...ask("research sea ice"),
        streamMode: ["custom"],
      }) as AsyncIterable<Part>,
      async (p) => {
        if (p.event === "metadata") runId = (p.data as { run_id: string }).run_id;
        if (p.event === "custom" && !cancelled) {
          cancelled = true;
          await client.runs.cancel(thread.thread_id, runId);
        }
      },
    );
    expect(cancelled).toBe(true);
    expect(parts.map((p) => p.event)).not.toContain("error");
    expect((await client.runs.get(thread.thread_id, runId)).status).toBe("interrupted");
  });

  it("one LISTEN connection per web process: the feed's hub wakes run streams too", async () => {
    const thread = await client.threads.create();
    const run = await client.runs.create(thread.thread_id, "research", ask("research estuaries"));
    const gone = new AbortController();
    const feed = openFeed(user.id, null, gone.signal).getReader();
    await feed.read(); // its opening frame: the hub is listening
    let listening = -1;
    const parts = await collect(
      client.runs.joinStream(thread.thread_id, run.run_id, { streamMode: ["custom"] }) as AsyncIterable<Part>,
      async (p) => {
        if (p.event !== "metadata") return;
        const {
          rows: [row],
        } = await sql<{ n: number }>`
        SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = current_database() AND query LIKE 'LISTEN %'`.execute(
          db(),
        );
        listening = row.n;
      },
    );
    gone.abort();
    await feed.cancel();
    // This process's hub and the worker's wake-ups, nothing for the run stream.
    expect(listening).toBe(2);
    // Followed live to its end all the same.
    expect(parts.filter((p) => p.event === "custom").length).toBeGreaterThan(0);
    expect((await client.runs.get(thread.thread_id, run.run_id)).status).toBe("success");
  });

  it("a foreign run's stream is 404 before any byte", async () => {
    const thread = await client.threads.create();
    const run = await client.runs.create(thread.thread_id, "research", ask("research fjords"));
    const other = await apiKeyFor(await signUp("ApStreamThief"));
    const r = await fetch(`${server.url}/api/ap/threads/${thread.thread_id}/runs/${run.run_id}/stream`, {
      headers: { "x-api-key": other.key },
    });
    expect(r.status).toBe(404);
    await client.runs.cancel(thread.thread_id, run.run_id);
  });
});

describe("Agent Protocol streaming: slow clients and failed runs", () => {
  it("a reader that never reads is cut once its buffer bound is passed, and its slot is freed; the server serves the next stream", async () => {
    const thread = await client.threads.create();
    const run = await client.runs.create(thread.thread_id, "research", ask("research tide pools"));
    await waitFor(
      async () => (await client.runs.get(thread.thread_id, run.run_id)).status === "success",
      40_000,
      "run success",
    );
    const modes = ["values", "updates", "messages-tuple", "custom"] as const;
    const whole = await collect(
      client.runs.joinStream(thread.thread_id, run.run_id, { streamMode: [...modes] }) as AsyncIterable<Part>,
    );
    const wholeBytes = JSON.stringify(whole).length;
    const before = process.env.HERALD_FEED_BUFFER_BYTES;
    // Far below the replay: a client that reads nothing passes it within the replay.
    process.env.HERALD_FEED_BUFFER_BYTES = String(Math.floor(wholeBytes / 4));
    try {
      // More of them than an account may hold open at once: each cut frees its slot.
      for (let i = 0; i <= MAX_STREAMS_PER_ACCOUNT; i++) {
        const body = await openRunStream(user.id, thread.thread_id, run.run_id, {
          modes: [...modes],
          lastEventId: null,
          signal: new AbortController().signal,
        });
        const reader = body.getReader();
        const outcome = await reader.closed.then(
          () => "ended",
          (err: Error) => err.message,
        );
        expect(outcome).toBe("slow client");
      }
    } finally {
      if (before === undefined) delete process.env.HERALD_FEED_BUFFER_BYTES;
      else process.env.HERALD_FEED_BUFFER_BYTES = before;
    }
    const again = await collect(
      client.runs.joinStream(thread.thread_id, run.run_id, { streamMode: [...modes] }) as AsyncIterable<Part>,
    );
    expect(again.map((p) => p.id)).toEqual(whole.map((p) => p.id));
  });

  it("a run that fails ends its stream with an error frame naming the category, then the end; the run reads error", async () => {
    // A worker whose model cannot be reached and that gives up at once: research fails at its first step.
    // It replaces the file's worker, which would otherwise take the run.
    await stopWorkers(worker);
    worker = startWorkerProcess({
      OPENAI_BASE_URL: `http://127.0.0.1:${await pickFreePort()}/v1`,
      OPENAI_API_KEY: "k",
      HERALD_MODEL_RETRY_BACKGROUND_MS: "1",
      HERALD_RESEARCH_STEP_MS: "0",
      HERALD_SEARCH_PROVIDER: "none",
    });
    await waitForBeat(worker);
    const thread = await client.threads.create();
    const parts = await collect(
      client.runs.stream(thread.thread_id, "research", {
        ...ask("research mudflats"),
        streamMode: ["custom", "values"],
      }) as AsyncIterable<Part>,
    );
    const runId = (parts[0].data as { run_id: string }).run_id;
    const last = parts.at(-1)!;
    expect(last.event).toBe("error");
    expect(last.data).toEqual({ error: expect.any(String), message: expect.any(String) });
    expect(parts.filter((p) => p.event === "error")).toHaveLength(1);
    // A category, never the driver's text.
    expect(JSON.stringify(last.data)).not.toMatch(/ECONNREFUSED|127\.0\.0\.1/);
    const run = await client.runs.get(thread.thread_id, runId);
    expect(run.status).toBe("error");
    // A join of the failed run replays the same end.
    const joined = await collect(
      client.runs.joinStream(thread.thread_id, runId, { streamMode: ["custom", "values"] }) as AsyncIterable<Part>,
    );
    expect(joined.at(-1)).toEqual(last);
  });
});
