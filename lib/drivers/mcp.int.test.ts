import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from "vitest";
import { randomUUID } from "node:crypto";
import { getDb } from "@/lib/db/client";
import { db, jsonb } from "@/lib/db/kysely";
import type { JsonText } from "@/lib/db/json-column-type.ts";
import { transactionWithEvents } from "@/lib/events/emit";
import { sql } from "kysely";
import * as tasksRoute from "@/app/api/tasks/route";
import * as taskRoute from "@/app/api/tasks/[id]/route";
import * as inputRoute from "@/app/api/tasks/[id]/input/route";
import * as messagesRoute from "@/app/api/conversations/[id]/messages/route";
import { startTask } from "@/lib/tasks/start-task";
import { claimExecution } from "@/lib/tasks/sql";
import { claimCancels } from "@/lib/tasks/cancel-sql";
import { executeTask } from "@/lib/runtime/execute-task";
import { executeCancel } from "@/lib/runtime/execute-cancel";
import { fenceCancel } from "@/lib/tasks/request-cancel";
import { registerDriver } from "./registry";
import { createMcpDriver, type McpDriver } from "./mcp";
import { elicitContent } from "./mcp-content";
import { configuredMcpDrivers, parseMcpServers } from "./mcp-config";
import { startMcpPeer, type McpPeer, type PeerOptions } from "@/tests/mcp-peer";
import { call, createConversationFor, signUp, waitFor, type TestUser } from "@/tests/helpers";
import { ERROR_CATEGORIES } from "@/lib/errors/categories";
import { reapOrphansOnce } from "@/lib/runtime/reap-orphans";
import { collectMetrics } from "@/lib/metrics/collect";

// Raw driver and remote text is logged by publicError, never stored: read it from the log.
const errorLog = vi.spyOn(console, "error").mockImplementation(() => {});
const logged = () => errorLog.mock.calls.flat().map(String).join("\n");

/**
 * The mcp driver against a real MCP server (SDK McpServer + registerToolTask
 * over Streamable HTTP on loopback) and the real database, with the execution
 * and cancel loops driven by hand: one claim per tick, timers skipped by
 * forcing nextRunAt / nextCancelAt instead of sleeping.
 */
let peer: McpPeer;
let driver: McpDriver;
let defaults: PeerOptions;
let u: TestUser;

beforeAll(async () => {
  peer = await startMcpPeer({ durationMs: 150, steps: 3, pollIntervalMs: 700 });
  defaults = { ...peer.options };
  driver = createMcpDriver({ name: "peer", url: peer.url, tool: "research", headers: { "x-herald-test": "1" } });
  registerDriver("mcp:peer", driver);
});
afterAll(async () => {
  await driver?.close();
  await peer?.stop();
});
beforeEach(async () => {
  errorLog.mockClear();
  Object.assign(peer.options, defaults, { resultText: undefined, sessionScoped: false });
  peer.failNext(0);
  u = await signUp("Mcp");
});

async function newTask(title = "Battery supply chain") {
  const conv = await createConversationFor(u);
  const { task } = await startTask({
    ownerId: u.id,
    conversationId: conv,
    title,
    prompt: `research ${title}`,
    driver: "mcp:peer",
    clientRequestId: randomUUID(),
  });
  return { id: task.id, conv };
}

const row = (id: string) => getDb().task.findUniqueOrThrow({ where: { id } });

/** One execution claim of this task, ignoring backoff. */
async function tick(id: string) {
  await db()
    .updateTable("task")
    .set({ nextRunAt: sql<Date>`now()` })
    .where("id", "=", id)
    .execute();
  const [leased] = await claimExecution("mcp-test-worker", 1, [id]);
  if (!leased) throw new Error("nothing to claim");
  return executeTask(leased, new AbortController().signal);
}

/** Submits and returns the remote task id Herald stored. */
async function submitted(id: string) {
  expect(await tick(id)).toBe("submitted");
  const r = await row(id);
  expect(r.remoteRef).toBeTruthy();
  return r.remoteRef!;
}

const remoteStatus = (remoteId: string, status: string) =>
  waitFor(async () => (await peer.taskState(remoteId))?.status === status, 10_000, `remote task ${status}`);

const callsOf = (method: string, remoteId?: string) =>
  peer.calls.filter((c) => c.method === method && (remoteId === undefined || c.taskId === remoteId));

/** Cancel as the API does (fence), then one cancel-loop claim of exactly this row. */
async function cancelNow(id: string) {
  await transactionWithEvents((tx) => fenceCancel(tx, u.id, id));
  // Earliest due first: leftovers of other suites must not be claimed instead.
  await db()
    .updateTable("task")
    .set({ nextCancelAt: new Date("2000-01-01T00:00:00Z") })
    .where("id", "=", id)
    .execute();
  const [leased] = await claimCancels("mcp-test-worker", 1);
  expect(leased?.id).toBe(id);
  return executeCancel(leased, new AbortController().signal);
}

/** Every place a task's data reaches a client: none may carry the remote id. */
async function expectNoLeak(remoteId: string, id: string, conv: string) {
  const responses = [
    await call(taskRoute.GET, { user: u, params: { id } }),
    await call(tasksRoute.GET, { user: u, path: "/api/tasks?scope=all" }),
    await call(messagesRoute.GET, { user: u, params: { id: conv } }),
  ];
  for (const r of responses) {
    expect(r.status).toBe(200);
    expect(JSON.stringify(r.json)).not.toContain(remoteId);
  }
  const events = await getDb().event.findMany({ where: { ownerId: u.id } });
  expect(JSON.stringify(events.map((e) => e.payload))).not.toContain(remoteId);
  const t = await row(id);
  const { remoteRef: _own, ...rest } = t;
  expect(JSON.stringify(rest)).not.toContain(remoteId);
}

describe("mcp driver against a real MCP Tasks server", () => {
  it("submit creates exactly one remote task; polling maps working → completed with the remote result as the final body", async () => {
    peer.options.durationMs = 800;
    const { id, conv } = await newTask();
    const remoteId = await submitted(id);
    expect(callsOf("tools/call")).toHaveLength(1);
    expect(callsOf("tools/call")[0].headers["x-herald-test"]).toBe("1");
    expect(peer.tasks.get(remoteId)?.args).toEqual({
      prompt: "research Battery supply chain",
      title: "Battery supply chain",
    });
    const stored = await row(id);
    expect(stored.driverData).toEqual({
      server: "peer",
      session: expect.any(String),
      protocol: "2025-11-25",
      remoteTtlMs: 3_600_000,
      pollMs: 700,
    });
    expect(stored.status).toBe("queued");

    expect(await tick(id)).toBe("stepped");
    const running = await row(id);
    expect(running.status).toBe("running");
    expect(running.progressText).toMatch(/^(Started|Researching)/);
    // The remote's pollInterval (700 ms) sets the next poll.
    expect(running.nextRunAt!.getTime() - Date.now()).toBeGreaterThan(300);

    await remoteStatus(remoteId, "completed");
    expect(await tick(id)).toBe("finished");
    const done = await row(id);
    expect(done.status).toBe("succeeded");
    const pubs = await getDb().publication.findMany({ where: { taskId: id } });
    expect(pubs).toHaveLength(1);
    expect(pubs[0]).toMatchObject({
      partial: false,
      content: "# Battery supply chain\n\nFindings for: research Battery supply chain",
    });
    expect(callsOf("tasks/result", remoteId)).toHaveLength(1);
    expect(callsOf("tools/call")).toHaveLength(1);
    const kinds = (await getDb().message.findMany({ where: { taskId: id }, orderBy: { seq: "asc" } })).map(
      (m) => m.kind,
    );
    expect(kinds).toEqual(expect.arrayContaining(["progress", "body", "terminal"]));
    await expectNoLeak(remoteId, id, conv);
  });

  it("a result over 256 KiB becomes a bounded preview marked as truncated", async () => {
    peer.options.durationMs = 0;
    peer.options.resultText = () => "é".repeat(200 * 1024);
    const { id } = await newTask("Big");
    const remoteId = await submitted(id);
    await remoteStatus(remoteId, "completed");
    expect(await tick(id)).toBe("finished");
    const [pub] = await getDb().publication.findMany({ where: { taskId: id } });
    expect(Buffer.byteLength(pub.content)).toBeLessThanOrEqual(256 * 1024);
    expect(pub.content).toContain("(truncated");
    expect(pub.content).not.toContain("\uFFFD");
  });

  it("a remote task the server no longer knows (expired, server restarted) ends failed", async () => {
    peer.options.durationMs = 60_000;
    const { id } = await newTask();
    await submitted(id);
    const lost = "0123456789abcdef0123456789abcdef";
    await db().updateTable("task").set({ remoteRef: lost }).where("id", "=", id).execute();
    expect(await tick(id)).toBe("failed");
    const r = await row(id);
    // The driver's explanation goes to the log; users see the category's sentence.
    expect(r.error).toBe(ERROR_CATEGORIES.remote_failed);
    expect(logged()).toMatch(/no longer knows this task/);
    expect(r.error).not.toContain(lost);
  });

  it("a failing remote task ends failed with the remote's error", async () => {
    peer.options.mode = "fail";
    const { id } = await newTask();
    const remoteId = await submitted(id);
    await remoteStatus(remoteId, "failed");
    expect(await tick(id)).toBe("failed");
    expect(await row(id)).toMatchObject({ status: "failed", error: ERROR_CATEGORIES.remote_failed });
    expect(logged()).toContain("The research source is unavailable.");
  });

  it("cancel calls tasks/cancel once and stores the remote's terminal status", async () => {
    peer.options.durationMs = 60_000;
    const { id } = await newTask();
    const remoteId = await submitted(id);
    expect(await tick(id)).toBe("stepped");
    expect(await cancelNow(id)).toBe("cancelled");
    expect(callsOf("tasks/cancel", remoteId)).toHaveLength(1);
    expect((await peer.taskState(remoteId))?.status).toBe("cancelled");
    expect((await row(id)).status).toBe("cancelled");
  });

  it("a remote that finishes before the cancel lands: Herald stores completed (succeeded), not cancelled", async () => {
    peer.options.durationMs = 60_000;
    peer.options.mode = "ignore-cancel";
    const { id } = await newTask();
    const remoteId = await submitted(id);
    expect(await cancelNow(id)).toBe("cancelled");
    expect(callsOf("tasks/cancel", remoteId)).toHaveLength(1);
    expect((await peer.taskState(remoteId))?.status).toBe("completed");
    expect((await row(id)).status).toBe("succeeded");
  });

  it("cancelling a remote task that already completed reads its real status", async () => {
    peer.options.durationMs = 0;
    const { id } = await newTask();
    const remoteId = await submitted(id);
    await remoteStatus(remoteId, "completed");
    expect(await cancelNow(id)).toBe("cancelled");
    expect(callsOf("tasks/cancel", remoteId)).toHaveLength(1);
    expect((await row(id)).status).toBe("succeeded");
  });

  it("3 consecutive transport errors report degraded tracking; the task stays running and a later poll recovers", async () => {
    peer.options.durationMs = 60_000;
    const { id, conv } = await newTask();
    const remoteId = await submitted(id);
    expect(await tick(id)).toBe("stepped");
    const before = await row(id);
    peer.failNext(3, { methods: ["tasks/get"] });
    for (let i = 0; i < 3; i++) expect(await tick(id)).toBe("retry");
    const degraded = await row(id);
    expect(degraded.status).toBe("running");
    expect(degraded.consecutiveErrors).toBe(3);
    expect(degraded.eventVersion).toBe(before.eventVersion + 1);
    expect(degraded.notificationStatus).toBe("pending");
    expect(callsOf("tasks/get", remoteId).filter((c) => c.failed)).toHaveLength(3);

    expect(await tick(id)).toBe("stepped");
    const recovered = await row(id);
    expect(recovered.status).toBe("running");
    expect(recovered.consecutiveErrors).toBe(0);
    await expectNoLeak(remoteId, id, conv);
  });

  it("JSON-RPC errors from the server are transient too", async () => {
    peer.options.durationMs = 60_000;
    const { id } = await newTask();
    await submitted(id);
    peer.failNext(1, { methods: ["tasks/get"], kind: "rpc" });
    expect(await tick(id)).toBe("retry");
    expect(await tick(id)).toBe("stepped");
    expect((await row(id)).consecutiveErrors).toBe(0);
  });

  it("input_required: the question is stored, the user's answer reaches the remote task, which then completes", async () => {
    peer.options.mode = "input";
    const { id, conv } = await newTask();
    const remoteId = await submitted(id);
    await remoteStatus(remoteId, "input_required");
    expect(await tick(id)).toBe("stepped");
    const waiting = await row(id);
    expect(waiting.status).toBe("input_required");
    expect(waiting.inputRequest).toMatchObject({ question: "Which region should the research cover?" });
    expect(waiting.notificationStatus).toBe("pending");
    await expectNoLeak(remoteId, id, conv);

    // A later poll while still waiting keeps the same question (no new event).
    const version = waiting.eventVersion;
    expect(await tick(id)).toBe("stepped");
    expect((await row(id)).eventVersion).toBe(version);

    expect((await call(inputRoute.POST, { user: u, params: { id }, body: { response: "Europe" } })).status).toBe(200);
    expect(await tick(id)).toBe("stepped");
    await waitFor(
      async () => (peer.tasks.get(remoteId)?.answers.length ?? 0) > 0,
      5_000,
      "the answer to reach the remote",
    );
    expect(peer.tasks.get(remoteId)?.answers).toEqual([{ action: "accept", content: { answer: "Europe" } }]);
    expect((await row(id)).status).toBe("running");

    await remoteStatus(remoteId, "completed");
    expect(await tick(id)).toBe("finished");
    const [pub] = await getDb().publication.findMany({ where: { taskId: id } });
    expect(pub.content).toContain("Scope: Europe");
  });

  it("an answer claimed by a process that never received the question reaches the remote over the stored session", async () => {
    peer.options.mode = "input";
    const { id, conv } = await newTask();
    const remoteId = await submitted(id);
    await remoteStatus(remoteId, "input_required");
    expect(await tick(id)).toBe("stepped");
    const asked = await row(id);
    // What any worker needs to answer: the creating session, its protocol version and the question's JSON-RPC id.
    expect(asked.driverData).toMatchObject({
      server: "peer",
      session: expect.any(String),
      protocol: "2025-11-25",
      question: { requestId: expect.anything() },
    });
    expect((await call(inputRoute.POST, { user: u, params: { id }, body: { response: "Asia" } })).status).toBe(200);
    // Another worker (or this one after a restart): its connections never saw the question.
    const other = createMcpDriver({ name: "peer", url: peer.url, tool: "research" });
    registerDriver("mcp:peer", other);
    try {
      expect(await tick(id)).toBe("stepped");
      await waitFor(
        async () => (peer.tasks.get(remoteId)?.answers.length ?? 0) > 0,
        5_000,
        "the answer to reach the remote",
      );
      expect(peer.tasks.get(remoteId)?.answers).toEqual([{ action: "accept", content: { answer: "Asia" } }]);
      // Every call about the task went over the session that created it.
      const session = (asked.driverData as { session: string }).session;
      expect(callsOf("tasks/get", remoteId).every((c) => c.headers["mcp-session-id"] === session)).toBe(true);
      await remoteStatus(remoteId, "completed");
      expect(await tick(id)).toBe("finished");
      expect((await getDb().publication.findMany({ where: { taskId: id } }))[0].content).toContain("Scope: Asia");
      await expectNoLeak(remoteId, id, conv);
    } finally {
      registerDriver("mcp:peer", driver);
      await other.close();
    }
  });

  it("a question whose session the server lost cannot be answered: the task fails saying so", async () => {
    peer.options.mode = "input";
    const { id } = await newTask();
    const remoteId = await submitted(id);
    await remoteStatus(remoteId, "input_required");
    expect(await tick(id)).toBe("stepped");
    await db()
      .updateTable("task")
      .set({ driverData: sql<JsonText>`"driverData" || ${jsonb({ session: "forgotten-session" })}::jsonb` })
      .where("id", "=", id)
      .execute();
    expect((await call(inputRoute.POST, { user: u, params: { id }, body: { response: "Asia" } })).status).toBe(200);
    const other = createMcpDriver({ name: "peer", url: peer.url, tool: "research" });
    registerDriver("mcp:peer", other);
    try {
      expect(await tick(id)).toBe("failed");
      expect((await row(id)).error).toBe(ERROR_CATEGORIES.protocol);
      expect(logged()).toMatch(/no longer has the session its question was asked on/);
      expect(peer.tasks.get(remoteId)?.answers).toEqual([]);
    } finally {
      registerDriver("mcp:peer", driver);
      await other.close();
    }
  });

  it("a server that binds tasks to the creating MCP session: another process polls, answers and finishes over the stored session; without it the task is unknown", async () => {
    peer.options.sessionScoped = true;
    peer.options.mode = "input";
    const { id } = await newTask("Scoped");
    const remoteId = await submitted(id);
    const other = createMcpDriver({ name: "peer", url: peer.url, tool: "research" });
    registerDriver("mcp:peer", other);
    try {
      // Without the stored session another connection cannot see the task at all.
      const { session: _s, ...withoutSession } = (await row(id)).driverData as Record<string, string>;
      const bare = { ...(await row(id)), driverData: withoutSession };
      expect(
        await other.step({
          task: bare,
          pendingUpdates: [],
          steps: [],
          model: undefined as never,
          signal: new AbortController().signal,
        }),
      ).toMatchObject({ status: "failed", error: expect.stringMatching(/no longer knows this task/) });

      await remoteStatus(remoteId, "input_required");
      expect(await tick(id)).toBe("stepped");
      expect((await row(id)).status).toBe("input_required");
      expect((await call(inputRoute.POST, { user: u, params: { id }, body: { response: "Oceania" } })).status).toBe(
        200,
      );
      expect(await tick(id)).toBe("stepped");
      await waitFor(
        async () => (peer.tasks.get(remoteId)?.answers.length ?? 0) > 0,
        5_000,
        "the answer to reach the remote",
      );
      expect(peer.tasks.get(remoteId)?.answers).toEqual([{ action: "accept", content: { answer: "Oceania" } }]);
      await remoteStatus(remoteId, "completed");
      expect(await tick(id)).toBe("finished");
      expect((await getDb().publication.findMany({ where: { taskId: id } }))[0].content).toContain("Scope: Oceania");
    } finally {
      registerDriver("mcp:peer", driver);
      await other.close();
    }
  });

  it("a malformed tasks/get reply (unknown status, another task's id) fails the task as a protocol error", async () => {
    peer.options.durationMs = 60_000;
    const reply =
      (status: string, other = false) =>
      (p: { taskId?: string } | undefined) => ({
        taskId: other ? "someone-else" : p?.taskId,
        status,
        ttl: null,
        createdAt: new Date().toISOString(),
        lastUpdatedAt: new Date().toISOString(),
      });
    const a = await newTask();
    const aRemote = await submitted(a.id);
    peer.failNext(1, { methods: ["tasks/get"], kind: "reply", reply: reply("paused") });
    expect(await tick(a.id)).toBe("failed");
    const aRow = await row(a.id);
    expect(aRow.error).toBe(ERROR_CATEGORIES.protocol);
    expect(logged()).toMatch(/malformed tasks\/get/);
    expect(aRow.error).not.toContain(aRemote);

    const b = await newTask();
    await submitted(b.id);
    peer.failNext(1, { methods: ["tasks/get"], kind: "reply", reply: reply("working", true) });
    expect(await tick(b.id)).toBe("failed");
    expect((await row(b.id)).error).toBe(ERROR_CATEGORIES.protocol);
    expect(logged()).toMatch(/another task/);
  });

  it("a failed hand-off cancels the remote task it created (compensation uses the id the driver remembers)", async () => {
    peer.options.durationMs = 60_000;
    const { id } = await newTask();
    const [leased] = await claimExecution("mcp-test-worker", 1, [id]);
    // Lose the lease after the remote call: the loop must compensate.
    const submit = driver.submit.bind(driver);
    const spy = vi.spyOn(driver, "submit").mockImplementation(async (task, signal) => {
      const handle = await submit(task, signal);
      await db().updateTable("task").set({ leaseToken: "someone-else" }).where("id", "=", id).execute();
      return handle;
    });
    try {
      expect(await executeTask(leased, new AbortController().signal)).toBe("lost");
    } finally {
      spy.mockRestore();
    }
    const created = callsOf("tools/call").at(-1);
    const remoteId = [...peer.tasks.keys()].at(-1)!;
    expect(created).toBeTruthy();
    expect(callsOf("tasks/cancel", remoteId)).toHaveLength(1);
    expect((await peer.taskState(remoteId))?.status).toBe("cancelled");
  });
});

describe("orphan reaper (tasks/list) against the real MCP server", () => {
  it("cancels an active remote task no row tracks once it stayed untracked past the grace, counts it once, and leaves tracked and ended tasks alone", async () => {
    peer.options.durationMs = 60_000;
    // A tracked task: submitted and stored like any other.
    const tracked = await newTask("Tracked");
    const trackedRemote = await submitted(tracked.id);
    // An orphan: created remotely by a submit whose handle never reached a row (no task row has this id).
    const ghost = { id: `ghost-${randomUUID()}`, prompt: "lost", title: "Lost" } as Parameters<typeof driver.submit>[0];
    const { remoteRef: orphan } = await driver.submit(ghost, new AbortController().signal);
    const signal = new AbortController().signal;

    // First sighting only: inside the grace period nothing is cancelled.
    await reapOrphansOnce(signal, 60_000);
    expect((await peer.taskState(orphan))?.status).toBe("working");
    expect(
      await getDb().remoteOrphan.findUnique({ where: { driver_remoteRef: { driver: "mcp:peer", remoteRef: orphan } } }),
    ).toMatchObject({ cancelledAt: null });

    await reapOrphansOnce(signal, 0);
    expect((await peer.taskState(orphan))?.status).toBe("cancelled");
    expect(callsOf("tasks/cancel", orphan)).toHaveLength(1);
    expect((await peer.taskState(trackedRemote))?.status).toBe("working");
    expect(await getDb().remoteOrphan.count({ where: { remoteRef: trackedRemote } })).toBe(0);
    // Counted once; a cancelled orphan is no longer active, so later passes leave it be.
    await reapOrphansOnce(signal, 0);
    expect(callsOf("tasks/cancel", orphan)).toHaveLength(1);
    expect(await getDb().remoteOrphan.count({ where: { remoteRef: orphan, cancelledAt: { not: null } } })).toBe(1);
    expect(await collectMetrics()).toMatch(/herald_remote_orphans_cancelled_total [1-9]/);
    await cancelNow(tracked.id);
  });

  it("a server configured with reapOrphans: false is never listed", async () => {
    const quiet = createMcpDriver({ name: "quiet", url: peer.url, tool: "research", reapOrphans: false });
    try {
      expect(await quiet.listRemote!(new AbortController().signal)).toBeNull();
    } finally {
      await quiet.close();
    }
  });
});

describe("mcp driver configuration", () => {
  it("HERALD_MCP_SERVERS: valid entries become mcp:<name> drivers; bad ones are logged and skipped", async () => {
    const errors = vi.spyOn(console, "error").mockImplementation(() => {});
    try {
      const raw = JSON.stringify([
        {
          name: "alpha",
          url: "http://127.0.0.1:1/mcp",
          tool: "research",
          headers: { authorization: "Bearer SECRET-TOKEN" },
        },
        { name: "bad name!", url: "http://127.0.0.1:1/mcp", tool: "research" },
        { name: "beta", url: "ftp://example.test/mcp", tool: "research" },
        { name: "gamma", url: "https://example.test/mcp" },
        { name: "alpha", url: "http://127.0.0.1:2/mcp", tool: "research" },
        "nonsense",
      ]);
      expect(parseMcpServers(raw).map((s) => s.name)).toEqual(["alpha"]);
      const drivers = await configuredMcpDrivers(raw);
      expect(drivers.map(([name]) => name)).toEqual(["mcp:alpha"]);
      // The same instance (and its connections) while the configuration is unchanged.
      expect((await configuredMcpDrivers(raw))[0][1]).toBe(drivers[0][1]);
      expect(parseMcpServers("not json")).toEqual([]);
      expect(parseMcpServers('{"name":"x"}')).toEqual([]);
      expect(parseMcpServers(undefined)).toEqual([]);
      expect(JSON.stringify(errors.mock.calls)).not.toContain("SECRET-TOKEN");
    } finally {
      errors.mockRestore();
    }
  });

  it("free-text answers fit the requested form", () => {
    const one = { type: "object", properties: { answer: { type: "string" } }, required: ["answer"] };
    expect(elicitContent(one, "Europe")).toEqual({ answer: "Europe" });
    expect(elicitContent({ properties: { n: { type: "integer" } } }, " 3 ")).toEqual({ n: 3 });
    expect(elicitContent({ properties: { ok: { type: "boolean" } } }, "yes")).toEqual({ ok: true });
    expect(
      elicitContent({ properties: { a: { type: "string" }, b: { type: "string" } } }, '{"a":"x","b":"y"}'),
    ).toEqual({ a: "x", b: "y" });
    expect(elicitContent({ properties: {} }, "anything")).toEqual({});
  });
});
