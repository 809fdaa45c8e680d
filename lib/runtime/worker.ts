import { env } from "@/lib/config/env";
import os from "node:os";
import { setMaxListeners } from "node:events";
import { randomUUID } from "node:crypto";
import { closeDb } from "@/lib/db/client";
import { PgListener } from "@/lib/events/listener";
import { WORK_CHANNEL } from "@/lib/events/channels";
import { claimRuns } from "@/lib/runs/sql";
import { executeRun } from "@/lib/runtime/execute-run";
import { claimCancels, claimExecution, nextExecutionDueMs } from "@/lib/tasks/sql";
import { abortTaskStep, executeTask } from "@/lib/runtime/execute-task";
import { executeCancel } from "@/lib/runtime/execute-cancel";
import { notifyLoop } from "@/lib/notify/loop";
import { dueLoop } from "@/lib/runtime/due-loop";
import { emailLoop } from "@/lib/email/loop";
import { emailAvailable } from "@/lib/settings/queries";
import { registerConfiguredMcpDrivers } from "@/lib/drivers/mcp-config";
import { registerConfiguredAgentDrivers } from "@/lib/drivers/agent-config";
import { beat, markStopped } from "@/lib/workers/heartbeat";
import { reapOnce } from "@/lib/workers/reaper";
import { reapOrphansOnce } from "@/lib/runtime/reap-orphans";
import { Loop } from "@/lib/workers/loop";

export const HEARTBEAT_MS = env("HERALD_HEARTBEAT_MS");
const POLL_MS = env("HERALD_POLL_MS");
const REAPER_MS = 10 * 60_000;

export interface RunningWorker {
  id: string;
  stop(): Promise<void>;
}

/**
 * A worker process: every lease loop, one LISTEN connection for wake-ups, and a
 * heartbeat row. All state lives in Postgres, so any number may run at once.
 */
export async function startWorker(opts: { concurrency?: number } = {}): Promise<RunningWorker> {
  const id = `${os.hostname()}:${process.pid}:${randomUUID().slice(0, 8)}`;
  const startedAt = new Date();
  const stopController = new AbortController();
  const stopping = stopController.signal;
  // Every in-flight row listens for the stop; a busy worker has far more than ten.
  setMaxListeners(1000, stopping);
  const mcp = registerConfiguredMcpDrivers();
  if (mcp.length) console.log(`[worker] MCP drivers: ${mcp.join(", ")}`);
  const agents = registerConfiguredAgentDrivers().map((a) => a.driver);
  if (agents.length) console.log(`[worker] remote agent drivers: ${agents.join(", ")}`);
  const concurrency = opts.concurrency ?? env("HERALD_WORKER_CONCURRENCY");

  const loops: Pick<Loop<unknown>, "name" | "wake" | "start">[] = [
    new Loop({ name: "runs", concurrency, pollMs: POLL_MS, claim: (n) => claimRuns(id, n), work: executeRun }, stopping),
    new Loop(
      { name: "tasks", concurrency, pollMs: POLL_MS, claim: (n) => claimExecution(id, n), work: executeTask, nextWakeMs: nextExecutionDueMs },
      stopping,
    ),
    new Loop({ name: "cancel", concurrency: 2, pollMs: POLL_MS, claim: (n) => claimCancels(id, n), work: executeCancel }, stopping),
    new Loop(notifyLoop(id), stopping),
    new Loop(dueLoop(), stopping),
    // Without SMTP_URL email is off: queued notices wait for a worker that has one (lib/email/state.ts E3).
    ...(emailAvailable() ? [new Loop(emailLoop(id), stopping)] : []),
  ];
  const byName = new Map(loops.map((l) => [l.name, l]));

  const onWake = (payload: string) => {
    if (payload.startsWith("task-cancel:")) {
      abortTaskStep(payload.slice("task-cancel:".length));
      return;
    }
    const loop = byName.get(payload);
    if (loop) loop.wake();
    else loops.forEach((l) => l.wake());
  };
  const listener = new PgListener(
    [WORK_CHANNEL],
    (_channel, payload) => onWake(payload),
    () => loops.forEach((l) => l.wake()),
    (m) => console.warn(`[worker] ${m}`),
  );
  await listener.start();
  await beat(id, [...byName.keys()], startedAt);
  const heartbeat = setInterval(() => {
    beat(id, [...byName.keys()], startedAt).catch((err) => console.error("[worker] heartbeat failed", err));
  }, HEARTBEAT_MS);

  const reaper = setInterval(() => {
    reapOnce().catch((err) => console.error("[worker] reaper failed", err));
  }, REAPER_MS);
  reaper.unref();
  // Remote tasks a dead worker created but never stored (lib/runtime/reap-orphans.ts).
  const orphans = setInterval(() => {
    reapOrphansOnce(stopping).catch((err) => console.error("[worker] orphan reaper failed", err));
  }, env("HERALD_ORPHAN_REAP_MS"));
  orphans.unref();

  const running = Promise.all(loops.map((l) => l.start()));
  console.log(`[worker] ${id} started (loops: ${[...byName.keys()].join(", ")})`);

  return {
    id,
    async stop() {
      stopController.abort();
      clearInterval(heartbeat);
      clearInterval(reaper);
      clearInterval(orphans);
      await running;
      await listener.stop();
      await markStopped(id).catch(() => {});
      await closeDb();
    },
  };
}
