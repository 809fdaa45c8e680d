import { afterAll, describe, expect, it } from "vitest";
import { randomUUID } from "node:crypto";
import { getDb } from "@/lib/db/client";
import { postMessage } from "@/lib/chat/post-message";
import {
  createConversationFor,
  signUp,
  startWorkerProcess,
  stopWorkers,
  waitFor,
  type WorkerProc,
} from "@/tests/helpers";

const started: WorkerProc[] = [];
const worker = (env: Record<string, string> = {}) => {
  const w = startWorkerProcess(env);
  started.push(w);
  return w;
};
afterAll(() => stopWorkers(...started));

async function runOf(runId: string) {
  return getDb().run.findUniqueOrThrow({ where: { id: runId } });
}

describe("run loop with real worker processes", () => {
  it("N workers and M queued runs: every run done exactly once, in order per conversation", async () => {
    // 18 turns queued at once is over an account's default quota; the loop is what is measured here.
    process.env.HERALD_LIMIT_QUEUED_TURNS = "50";
    const user = await signUp("Many");
    const runs: { conversationId: string; runId: string }[] = [];
    for (let c = 0; c < 6; c++) {
      const conversationId = await createConversationFor(user);
      for (let i = 0; i < 3; i++) {
        const { run } = await postMessage(user.id, conversationId, {
          content: `hello ${c}.${i}`,
          clientMessageId: randomUUID(),
        });
        runs.push({ conversationId, runId: run.id });
      }
    }
    const ws = [worker(), worker(), worker()];
    await waitFor(
      async () =>
        (await getDb().run.count({ where: { id: { in: runs.map((r) => r.runId) }, status: "succeeded" } })) ===
        runs.length,
      60_000,
      "all runs to succeed",
    );
    for (const { runId } of runs) {
      const run = await runOf(runId);
      expect(run.attempts).toBe(1);
      expect(run.modelRequests).toBe(1);
      expect(await getDb().message.count({ where: { runId, kind: "assistant" } })).toBe(1);
    }
    // Per conversation, replies come in the order the user turns were sent.
    for (const conversationId of new Set(runs.map((r) => r.conversationId))) {
      const msgs = await getDb().message.findMany({ where: { conversationId }, orderBy: { seq: "asc" } });
      const replies = msgs.filter((m) => m.kind === "assistant").map((m) => m.runId);
      expect(replies).toEqual(runs.filter((r) => r.conversationId === conversationId).map((r) => r.runId));
      const finished = await getDb().run.findMany({ where: { conversationId }, orderBy: { createdAt: "asc" } });
      for (let i = 1; i < finished.length; i++) {
        expect(finished[i].startedAt!.getTime()).toBeGreaterThanOrEqual(finished[i - 1].finishedAt!.getTime());
      }
    }
    const owners = new Set(
      (await getDb().run.findMany({ where: { id: { in: runs.map((r) => r.runId) } } })).map((r) => r.leaseOwner),
    );
    expect(owners).toEqual(new Set([null]));
    await stopWorkers(...ws);
    delete process.env.HERALD_LIMIT_QUEUED_TURNS;
  });

  it("a SIGKILLed worker's run is finished by another worker exactly once", async () => {
    const user = await signUp("Crash");
    const conversationId = await createConversationFor(user);
    const slow = worker({ HERALD_OFFLINE_CHUNK_MS: "150", HERALD_RUN_LEASE_MS: "1500" });
    const { run } = await postMessage(user.id, conversationId, {
      content: "tell me something long",
      clientMessageId: randomUUID(),
    });
    // Mid-run: claimed and its model request counted, reply not yet stored.
    await waitFor(
      async () => {
        const r = await runOf(run.id);
        return r.status === "running" && r.modelRequests === 1;
      },
      20_000,
      "slow worker to be mid-run",
    );
    slow.child.kill("SIGKILL");
    await slow.exited;
    expect(await getDb().message.count({ where: { runId: run.id, kind: "assistant" } })).toBe(0);

    // The killed worker's short lease is what the rescuer waits out; its own is long, so a loaded machine renewing it
    // late cannot make a third attempt of a run that is not in trouble.
    const rescuer = worker({ HERALD_RUN_LEASE_MS: "15000" });
    const done = await waitFor(
      async () => {
        const r = await runOf(run.id);
        return r.status === "succeeded" ? r : null;
      },
      30_000,
      "rescuer to finish the run",
    );
    expect(done.attempts).toBe(2);
    // One request per attempt: the killed attempt committed nothing, so nothing was repeated.
    expect(done.modelRequests).toBe(2);
    expect(await getDb().message.count({ where: { runId: run.id, kind: "assistant" } })).toBe(1);
    await stopWorkers(rescuer);
  });

  it("SIGTERM releases the in-flight run without counting the attempt", async () => {
    const user = await signUp("Graceful");
    const conversationId = await createConversationFor(user);
    const slow = worker({ HERALD_OFFLINE_CHUNK_MS: "150" });
    const { run } = await postMessage(user.id, conversationId, {
      content: "take your time",
      clientMessageId: randomUUID(),
    });
    await waitFor(async () => (await runOf(run.id)).status === "running", 20_000, "run to start");
    slow.child.kill("SIGTERM");
    expect(await slow.exited).toBe(0);
    const released = await runOf(run.id);
    expect(released.status).toBe("queued");
    expect(released.attempts).toBe(0);
    expect(released.leaseToken).toBeNull();
    const next = worker();
    await waitFor(async () => (await runOf(run.id)).status === "succeeded", 30_000, "run to finish after restart");
    expect(await getDb().message.count({ where: { runId: run.id, kind: "assistant" } })).toBe(1);
    await stopWorkers(next);
  });
});
