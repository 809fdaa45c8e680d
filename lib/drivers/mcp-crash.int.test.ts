import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { randomUUID } from "node:crypto";
import { getDb } from "@/lib/db/client";
import * as tasksRoute from "@/app/api/tasks/route";
import * as inputRoute from "@/app/api/tasks/[id]/input/route";
import { collectMetrics } from "@/lib/metrics/collect";
import { startMcpPeer, type McpPeer, type PeerOptions } from "@/tests/mcp-peer";
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

/**
 * The mcp driver across worker crashes: real worker processes (SIGKILLed),
 * a real MCP Tasks server on loopback, the real database. The peer keeps
 * tasks visible across MCP sessions (as a server scoping tasks to the
 * caller's authorisation does), so the reaper's tasks/list sees the orphans.
 */
let peer: McpPeer;
let defaults: PeerOptions;
let u: TestUser;
const workers: WorkerProc[] = [];

const workerEnv = (extra: Record<string, string> = {}) => ({
  HERALD_MCP_SERVERS: JSON.stringify([{ name: "crashpeer", url: peer.url, tool: "research" }]),
  HERALD_TASK_RETRY_MS: "200",
  HERALD_ORPHAN_REAP_MS: "300",
  HERALD_ORPHAN_GRACE_MS: "500",
  ...extra,
});

beforeAll(async () => {
  peer = await startMcpPeer({ durationMs: 300, steps: 3, pollIntervalMs: 200 });
  defaults = { ...peer.options };
  // The API (this process) validates the driver name against the same configuration as the workers.
  process.env.HERALD_MCP_SERVERS = workerEnv().HERALD_MCP_SERVERS;
  u = await signUp("McpCrash");
});
afterAll(async () => {
  await stopWorkers(...workers);
  await peer?.stop();
  delete process.env.HERALD_MCP_SERVERS;
});
beforeEach(async () => {
  await stopWorkers(...workers.splice(0));
  Object.assign(peer.options, defaults);
});

const row = (id: string) => getDb().task.findUniqueOrThrow({ where: { id } });

async function launch(title: string) {
  const conv = await createConversationFor(u);
  const r = await call(tasksRoute.POST, {
    user: u,
    body: {
      conversationId: conv,
      title,
      prompt: `research ${title}`,
      driver: "mcp:crashpeer",
      clientRequestId: randomUUID(),
    },
  });
  expect(r.status).toBe(202);
  return r.json.task.id as string;
}

const settled = (id: string, status: string, timeoutMs = 30_000) =>
  waitFor(
    async () => {
      const r = await row(id);
      return r.status === status ? r : null;
    },
    timeoutMs,
    `task ${status}`,
  );

async function kill(w: WorkerProc) {
  w.child.kill("SIGKILL");
  await w.exited;
}

/** One of each visible fact: a body, a terminal line, one notice per event. */
async function expectOneOfEach(id: string) {
  const kinds = (await getDb().message.findMany({ where: { taskId: id } })).map((m) => m.kind);
  expect(kinds.filter((k) => k === "body")).toHaveLength(1);
  expect(kinds.filter((k) => k === "terminal")).toHaveLength(1);
  expect(await getDb().publication.count({ where: { taskId: id } })).toBe(1);
  // One notice per event (the end, and a question if there was one), each shown once in the conversation.
  const notices = await getDb().notice.findMany({ where: { taskId: id } });
  expect(notices.filter((n) => n.outcome === "done")).toHaveLength(1);
  expect(kinds.filter((k) => k === "notice")).toHaveLength(notices.length);
}

describe("mcp driver across worker crashes", () => {
  it(
    "the worker that saw the question is SIGKILLed; the answer posted afterwards reaches the remote through another worker",
    { timeout: 90_000 },
    async () => {
      peer.options.mode = "input";
      const first = startWorkerProcess(workerEnv());
      workers.push(first);
      const id = await launch("Regional grid storage");
      const asked = await waitFor(
        async () => {
          const r = await row(id);
          return r.status === "input_required" && (r.driverData as { question?: unknown })?.question ? r : null;
        },
        45_000,
        "the question stored",
      );
      expect(asked.inputRequest).toMatchObject({ question: "Which region should the research cover?" });
      await kill(first);

      expect((await call(inputRoute.POST, { user: u, params: { id }, body: { response: "Nordics" } })).status).toBe(
        200,
      );
      workers.push(startWorkerProcess(workerEnv()));
      const done = await settled(id, "succeeded");
      expect(peer.tasks.get(done.remoteRef!)?.answers).toEqual([{ action: "accept", content: { answer: "Nordics" } }]);
      const [pub] = await getDb().publication.findMany({ where: { taskId: id } });
      expect(pub.content).toContain("Scope: Nordics");
      expect([...peer.tasks.values()].filter((t) => t.args.title === "Regional grid storage")).toHaveLength(1);
      await expectOneOfEach(id);
    },
  );

  it(
    "SIGKILL after the handle is stored, while the remote works: the next worker polls the same remote task over the stored session; one remote task, one of each",
    { timeout: 60_000 },
    async () => {
      peer.options.durationMs = 4_000;
      const first = startWorkerProcess(workerEnv());
      workers.push(first);
      const title = `Stored ${randomUUID().slice(0, 8)}`;
      const id = await launch(title);
      const running = await waitFor(
        async () => {
          const r = await row(id);
          return r.status === "running" && r.remoteRef ? r : null;
        },
        30_000,
        "running with a stored handle",
      );
      await kill(first);
      workers.push(startWorkerProcess(workerEnv()));
      const done = await settled(id, "succeeded");
      expect(done.remoteRef).toBe(running.remoteRef);
      expect([...peer.tasks.values()].filter((t) => t.args.title === title)).toHaveLength(1);
      const session = (running.driverData as { session: string }).session;
      const polls = peer.calls.filter((c) => c.method === "tasks/get" && c.taskId === done.remoteRef);
      // "running" is written when a claim starts, before its first tasks/get: the first worker may have polled or not.
      expect(polls.length).toBeGreaterThanOrEqual(1);
      expect(polls.every((c) => c.headers["mcp-session-id"] === session)).toBe(true);
      await expectOneOfEach(id);
    },
  );

  it(
    "SIGKILL between the remote create and the stored handle: the task runs once more remotely, the reaper cancels the orphan (counted), one live remote task, one of each notice",
    { timeout: 90_000 },
    async () => {
      // The orphan would work a minute; the task's second remote run finishes at once.
      peer.options.durationMs = 60_000;
      const before = Number(/herald_remote_orphans_cancelled_total (\d+)/.exec(await collectMetrics())?.[1] ?? 0);
      const crashing = startWorkerProcess(
        workerEnv({ HERALD_TEST_AGENT_PAUSE_AFTER_CREATE_MS: "60000", HERALD_TASK_LEASE_MS: "2000" }),
      );
      workers.push(crashing);
      const title = `Orphaned ${randomUUID().slice(0, 8)}`;
      const id = await launch(title);
      await waitFor(
        async () => crashing.output().includes(`test pause after create ${id}`),
        30_000,
        "created, handle not stored",
      );
      const mid = await row(id);
      expect([mid.status, mid.remoteRef]).toEqual(["submitted", null]);
      const ofTask = () => [...peer.tasks.values()].filter((t) => t.args.title === title);
      expect(ofTask()).toHaveLength(1);
      const orphan = ofTask()[0].taskId;
      peer.options.durationMs = 300;
      await kill(crashing);

      workers.push(startWorkerProcess(workerEnv()));
      // The next claim submits again (2025-11-25 has no idempotency key); the reaper cancels the first.
      // The reaper records the cancel after the peer has answered it: wait for both.
      const orphanRow = () =>
        getDb().remoteOrphan.findUnique({
          where: { driver_remoteRef: { driver: "mcp:crashpeer", remoteRef: orphan } },
        });
      await waitFor(
        async () => (await peer.taskState(orphan))?.status === "cancelled" && (await orphanRow())?.cancelledAt != null,
        30_000,
        "the orphan cancelled and recorded",
      );
      const done = await settled(id, "succeeded");
      expect(ofTask()).toHaveLength(2);
      expect(done.remoteRef).not.toBe(orphan);
      expect((await peer.taskState(done.remoteRef!))?.status).toBe("completed");
      const live = await Promise.all(ofTask().map(async (t) => (await peer.taskState(t.taskId))?.status));
      expect(live.filter((s) => s === "working" || s === "input_required")).toHaveLength(0);
      expect(await orphanRow()).toMatchObject({ cancelledAt: expect.any(Date) });
      // The tracked task was never taken for an orphan.
      expect(await getDb().remoteOrphan.count({ where: { remoteRef: done.remoteRef! } })).toBe(0);
      const after = Number(/herald_remote_orphans_cancelled_total (\d+)/.exec(await collectMetrics())?.[1]);
      // Other suites on the same database may count orphans of their own meanwhile.
      expect(after).toBeGreaterThanOrEqual(before + 1);
      await expectOneOfEach(id);
    },
  );
});
