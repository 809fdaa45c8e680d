import { afterAll, describe, expect, it } from "vitest";
import { randomUUID } from "node:crypto";
import { getDb } from "@/lib/db/client";
import { startTask } from "./start-task";
import { requestCancel } from "./request-cancel";
import { liveWorkers } from "@/lib/fleet/heartbeat";
import { noticeInConversation } from "@/lib/delivery/contract";
import { createConversationFor, signUp, waitFor } from "@/tests/helpers";
import { Fleet } from "@/tests/chaos/fleet";

/**
 * kill -9 at arbitrary moments of every loop (execution, cancel, notify, runs):
 * workers with short leases are SIGKILLed over and over while tasks research,
 * get cancelled and get narrated. Afterwards every promise must hold exactly once.
 */
const SHORT_LEASES = {
  HERALD_TASK_LEASE_MS: "1200",
  HERALD_RUN_LEASE_MS: "1200",
  HERALD_NOTIFY_LEASE_MS: "1200",
  HERALD_NOTIFY_INTERVAL_MS: "300",
  // Narrations stream for a second or two, so the kills below land mid-work (the evidence check at the end).
  HERALD_OFFLINE_CHUNK_MS: "40",
  HERALD_POLL_MS: "300",
};

// Seeded, so a failure can be replayed.
let seed = 4242;
const rand = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;

let fleet: Fleet | null = null;
afterAll(() => fleet?.stop());

describe("crash anywhere", () => {
  it(
    "SIGKILLed workers in every loop: steps, terminal facts, notices and narrations each happen exactly once",
    { timeout: 180_000 },
    async () => {
      const u = await signUp("Chaos");
      const ids: string[] = [];
      // Every third task is cancelled at round 3. Those pace their sections a minute apart, so
      // none can have finished by then (the others' 3 × 250 ms may, once the workers are up).
      const toCancel = (i: number) => i % 3 === 0;
      for (let i = 0; i < 6; i++) {
        const conv = await createConversationFor(u, `chaos ${i}`);
        const { task } = await startTask({
          ownerId: u.id,
          conversationId: conv,
          title: `chaos ${i}`,
          prompt: `research chaos ${i}`,
          clientRequestId: randomUUID(),
          options: { simulate: { steps: 3, stepMs: toCancel(i) ? 60_000 : 250 } },
        });
        ids.push(task.id);
      }
      const cancelled = ids.filter((_, i) => toCancel(i));
      // Kills hit workers whose loops run (tests/chaos/fleet.ts): a worker killed while still booting (seconds on a
      // loaded machine) held nothing, and a run of such kills left the evidence check below with nothing to see.
      fleet = new Fleet(2, SHORT_LEASES);
      for (let round = 0; round < 10; round++) {
        await waitFor(async () => fleet!.whole(), 60_000, "both workers running");
        if (round === 3) {
          // A cancel needs a live worker (it answers 503 otherwise); on a loaded machine the fresh ones may not have beaten yet.
          await waitFor(async () => (await liveWorkers()).alive > 0, 30_000, "a worker beating");
          for (const id of cancelled) await requestCancel(u.id, id);
        }
        await new Promise((r) => setTimeout(r, 300 + rand() * 900)); // chaos timing, not synchronisation
        const ready = fleet.ready();
        if (ready.length > 0) await fleet.kill(ready[Math.floor(rand() * ready.length)]);
      }

      const db = getDb();
      await waitFor(
        async () => {
          const rows = await db.task.findMany({ where: { id: { in: ids } } });
          return rows.every(
            (t) =>
              ["succeeded", "cancelled"].includes(t.status) &&
              ["delivered", "dead_letter"].includes(t.notificationStatus),
          );
        },
        120_000,
        "every task terminal and its notification settled",
      );

      for (const id of ids) {
        const task = await db.task.findUniqueOrThrow({ where: { id } });
        expect(task.status).toBe(cancelled.includes(id) ? "cancelled" : "succeeded");
        expect(task.notificationStatus).toBe("delivered");
        const steps = await db.taskStep.findMany({ where: { taskId: id }, orderBy: { index: "asc" } });
        expect(steps.map((s) => s.index)).toEqual(steps.map((_, i) => i));
        expect(steps.every((s) => s.modelRequests === 1)).toBe(true);
        if (!cancelled.includes(id)) expect(steps).toHaveLength(4);
        const msgs = await db.message.findMany({ where: { taskId: id } });
        expect(msgs.filter((m) => m.kind === "terminal")).toHaveLength(1);
        const noticeRows = await db.notice.findMany({ where: { taskId: id } });
        const noticeMsgs = msgs.filter((m) => m.kind === "notice");
        expect(noticeRows.map((n) => n.key).sort()).toEqual([cancelled.includes(id) ? "cancelled" : "final"]);
        // A cancel's one message is its terminal line; its notice row has no message of its own.
        expect(noticeMsgs).toHaveLength(noticeRows.filter((n) => noticeInConversation(n.key)).length);
        const pubs = await db.publication.findMany({ where: { taskId: id } });
        expect(new Set(pubs.map((p) => p.version)).size).toBe(pubs.length);
        expect(msgs.filter((m) => m.kind === "body")).toHaveLength(pubs.length);
        // Narration: one succeeded run for the delivered version, and exactly one reply from it. A cancel is
        // told by its terminal line and notice alone (lib/notify/state.ts narrates()).
        const runs = await db.run.findMany({ where: { taskId: id, kind: "notification" } });
        if (cancelled.includes(id)) {
          expect(runs).toEqual([]);
          continue;
        }
        const succeeded = runs.filter((r) => r.status === "succeeded");
        expect(succeeded).toHaveLength(1);
        expect(new Set(runs.map((r) => r.idempotencyKey)).size).toBe(runs.length);
        const replies = await db.message.findMany({
          where: { runId: { in: runs.map((r) => r.id) }, kind: "assistant" },
        });
        expect(replies).toHaveLength(1);
        expect(replies[0].runId).toBe(succeeded[0].id);
      }
      // Evidence the kills landed mid-work: some lease was taken over after a crash.
      const tasks = await db.task.findMany({ where: { id: { in: ids } } });
      const stepCounts = await Promise.all(ids.map((id) => db.taskStep.count({ where: { taskId: id } })));
      const reclaimedTasks = tasks.filter((t, i) => t.attempts > stepCounts[i] + 1).length;
      const reclaimedRuns = await db.run.count({ where: { taskId: { in: ids }, attempts: { gt: 1 } } });
      console.log(`chaos: ${reclaimedTasks} task(s) and ${reclaimedRuns} narration run(s) re-claimed after a SIGKILL`);
      expect(reclaimedTasks + reclaimedRuns).toBeGreaterThan(0);
    },
  );
});
