import http from "node:http";
import { createHash, createHmac } from "node:crypto";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Client } from "@langchain/langgraph-sdk";
import * as threadsRoute from "@/app/api/ap/threads/route";
import * as runsRoute from "@/app/api/ap/threads/[id]/runs/route";
import * as runRoute from "@/app/api/ap/threads/[id]/runs/[rid]/route";
import * as webhooksRoute from "@/app/api/webhooks/route";
import { getDb } from "@/lib/db/client";
import {
  apiKeyFor,
  call,
  signUp,
  startWorkerProcess,
  stopWorkers,
  waitFor,
  waitForBeat,
  type TestUser,
  type WorkerProc,
} from "@/tests/helpers";
import { serveRoutes } from "@/tests/route-server";

interface Received {
  path: string;
  at: number;
  body: string;
  signature: string;
}

let server: Awaited<ReturnType<typeof serveRoutes>>;
let receiver: http.Server;
let receiverUrl: string;
const received: Received[] = [];
let user: TestUser;
let key: string;
let client: Client;

const ask = (content: string) => ({ input: { messages: [{ role: "user", content }] } });
const hits = (path: string) => received.filter((r) => r.path === path);

// A quick budget: three deliveries, 200 ms apart at first, one second each at most.
const WEBHOOK_ENV = {
  HERALD_AP_WEBHOOK_ATTEMPTS: "3",
  HERALD_AP_WEBHOOK_BACKOFF_MS: "200",
  HERALD_AP_WEBHOOK_TIMEOUT_MS: "1000",
  HERALD_RESEARCH_STEPS: "1",
  HERALD_RESEARCH_STEP_MS: "0",
  HERALD_POLL_MS: "200",
};

beforeAll(async () => {
  server = await serveRoutes([
    { path: "/api/ap/threads", methods: { POST: threadsRoute.POST } },
    { path: "/api/ap/threads/:id/runs", methods: { POST: runsRoute.POST } },
    { path: "/api/ap/threads/:id/runs/:rid", methods: { GET: runRoute.GET } },
  ]);
  let flaky = 0;
  receiver = http.createServer((req, res) => {
    let body = "";
    req.on("data", (c) => (body += c));
    req.on("end", () => {
      const path = req.url ?? "/";
      received.push({ path, at: Date.now(), body, signature: String(req.headers["x-herald-signature"] ?? "") });
      if (path === "/never") return; // never answers: each delivery times out
      if (path === "/flaky") {
        flaky += 1;
        if (flaky === 1) return void res.writeHead(500).end("down");
        if (flaky === 2) return void res.writeHead(429, { "retry-after": "1" }).end("slow down");
      }
      res.writeHead(200).end("ok");
    });
  });
  await new Promise<void>((r) => receiver.listen(0, "127.0.0.1", r));
  receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`;
  user = await signUp("ApHooks");
  key = (await apiKeyFor(user)).key;
  client = new Client({ apiUrl: `${server.url}/api/ap`, apiKey: key });
});
afterAll(async () => {
  receiver.closeAllConnections();
  await new Promise<void>((r) => receiver.close(() => r()));
  await server?.close();
});

describe("Agent Protocol webhooks", () => {
  it("a webhook to a private address is refused at delivery without HERALD_FETCH_ALLOW_PRIVATE: a dead letter, nothing sent", async () => {
    const worker = startWorkerProcess({ ...WEBHOOK_ENV, HERALD_FETCH_ALLOW_PRIVATE: "0" });
    try {
      const thread = await client.threads.create();
      const run = await client.runs.create(thread.thread_id, "research", {
        ...ask("research moss"),
        webhook: `${receiverUrl}/private`,
      });
      const row = await waitFor(
        async () => {
          const w = await getDb().apWebhook.findUniqueOrThrow({ where: { runId: run.run_id } });
          return w.state === "dead" ? w : null;
        },
        30_000,
        "refused webhook dead",
      );
      expect({ lastError: row.lastError, attempts: row.attempts }).toEqual({ lastError: "address", attempts: 1 });
      expect(hits("/private")).toHaveLength(0);
    } finally {
      await stopWorkers(worker);
    }
  });

  it("retried until a 2xx (Retry-After honoured), signed, delivered once and never again; a receiver that never answers is a dead letter; Settings lists both", async () => {
    const worker: WorkerProc = startWorkerProcess({ ...WEBHOOK_ENV, HERALD_FETCH_ALLOW_PRIVATE: "1" });
    try {
      const t1 = await client.threads.create();
      const flaky = await client.runs.create(t1.thread_id, "research", {
        ...ask("research lichen"),
        webhook: `${receiverUrl}/flaky`,
      });
      const t2 = await client.threads.create();
      const never = await client.runs.create(t2.thread_id, "research", {
        ...ask("research ferns"),
        webhook: `${receiverUrl}/never`,
      });
      await waitFor(
        async () =>
          (await getDb().apWebhook.findUniqueOrThrow({ where: { runId: flaky.run_id } })).state === "delivered",
        30_000,
        "flaky delivered",
      );
      const dead = await waitFor(
        async () => {
          const w = await getDb().apWebhook.findUniqueOrThrow({ where: { runId: never.run_id } });
          return w.state === "dead" ? w : null;
        },
        30_000,
        "never dead",
      );
      expect({ attempts: dead.attempts, lastError: dead.lastError }).toEqual({ attempts: 3, lastError: "timeout" });
      expect(hits("/never")).toHaveLength(3);

      // Three deliveries, the third at least the asked second after the 429; nothing after the 200,
      // though the worker went on polling for as long as the other row took to die.
      const f = hits("/flaky");
      expect(f).toHaveLength(3);
      expect(f[2].at - f[1].at).toBeGreaterThanOrEqual(1000);
      const payload = JSON.parse(f[2].body);
      expect(payload).toMatchObject({
        run_id: flaky.run_id,
        thread_id: t1.thread_id,
        status: "success",
        assistant_id: "research",
      });
      expect(payload.values.messages.at(-1)).toMatchObject({
        type: "ai",
        content: expect.stringMatching(/^# .*lichen/i),
      });
      // The signature: HMAC-SHA256 over "<t>.<body>" keyed with the hex SHA-256 of the API key.
      const m = /^t=(\d+),v1=([0-9a-f]{64})$/.exec(f[2].signature)!;
      const secret = createHash("sha256").update(key).digest("hex");
      expect(m[2]).toBe(createHmac("sha256", secret).update(`${m[1]}.${f[2].body}`).digest("hex"));

      const list = await call(webhooksRoute.GET, { user });
      expect(list.status).toBe(200);
      const rows = list.json.webhooks as {
        runId: string;
        host: string;
        state: string;
        attempts: number;
        lastError: string | null;
      }[];
      expect(rows.find((r) => r.runId === flaky.run_id)).toMatchObject({
        host: new URL(receiverUrl).host,
        state: "delivered",
        attempts: 3,
        lastError: null,
      });
      expect(rows.find((r) => r.runId === never.run_id)).toMatchObject({
        state: "dead",
        attempts: 3,
        lastError: "timeout",
      });
      expect(JSON.stringify(list.json)).not.toContain("/flaky"); // the host only: a URL may carry a token
    } finally {
      await stopWorkers(worker);
    }
  });

  it("delivered as its run ends, not a poll later: a run's end and an interrupt taking its task over wake the loop", async () => {
    // A poll far longer than any wait below: only a wake-up delivers in time. Paced, so a run can be taken over mid-task.
    const worker = startWorkerProcess({
      ...WEBHOOK_ENV,
      HERALD_POLL_MS: "600000",
      HERALD_RESEARCH_STEPS: "3",
      HERALD_RESEARCH_STEP_MS: "1000",
      HERALD_FETCH_ALLOW_PRIVATE: "1",
    });
    try {
      await waitForBeat(worker);
      const t1 = await client.threads.create();
      const ended = await client.runs.create(t1.thread_id, "research", {
        ...ask("research tidal flats"),
        webhook: `${receiverUrl}/ended`,
      });
      await waitFor(async () => hits("/ended").length === 1, 30_000, "webhook at the run's end");
      const endedRow = await getDb().apRun.findUniqueOrThrow({ where: { id: ended.run_id } });
      const task1 = await getDb().task.findUniqueOrThrow({ where: { id: endedRow.taskId } });
      expect(hits("/ended")[0].at - task1.completedAt!.getTime()).toBeLessThan(5_000);

      // The first run is over once the second takes its task over, though the task works on.
      const t2 = await client.threads.create();
      const first = await client.runs.create(t2.thread_id, "research", {
        ...ask("research salt pans"),
        webhook: `${receiverUrl}/taken`,
      });
      const { taskId } = await getDb().apRun.findUniqueOrThrow({ where: { id: first.run_id } });
      await waitFor(
        async () => (await getDb().task.findUniqueOrThrow({ where: { id: taskId } })).status === "running",
        30_000,
        "task running",
      );
      await client.runs.create(t2.thread_id, "research", {
        ...ask("only the Atacama"),
        multitaskStrategy: "interrupt",
      });
      await waitFor(async () => hits("/taken").length === 1, 30_000, "webhook at the takeover");
      expect(JSON.parse(hits("/taken")[0].body)).toMatchObject({ run_id: first.run_id, status: "interrupted" });
      expect((await getDb().task.findUniqueOrThrow({ where: { id: taskId } })).completedAt).toBeNull();
    } finally {
      await stopWorkers(worker);
    }
  });

  it("a webhook that is no http(s) URL is a 400 naming webhook; no run is made", async () => {
    const thread = await client.threads.create();
    const r = await fetch(`${server.url}/api/ap/threads/${thread.thread_id}/runs`, {
      method: "POST",
      headers: { "x-api-key": key, "content-type": "application/json" },
      body: JSON.stringify({ assistant_id: "research", ...ask("x"), webhook: "file:///etc/passwd" }),
    });
    expect(r.status).toBe(400);
    expect(((await r.json()) as { error: { field: string } }).error.field).toBe("webhook");
    expect(await getDb().apRun.count({ where: { conversationId: thread.thread_id } })).toBe(0);
  });
});
