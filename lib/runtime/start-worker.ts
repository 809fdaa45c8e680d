import { env } from "@/lib/config/env";
import os from "node:os";
import { setMaxListeners } from "node:events";
import { randomUUID } from "node:crypto";
import { closeDb } from "@/lib/db/client";
import { PgListener } from "@/lib/events/listener";
import { WORK_CHANNEL } from "@/lib/events/channels";
import { claimRuns } from "@/lib/runs/sql";
import { executeRun } from "@/lib/runtime/execute-run";
import { claimExecution, nextExecutionDueMs } from "@/lib/tasks/sql";
import { claimCancels } from "@/lib/tasks/cancel-sql";
import { abortTaskStep, executeTask } from "@/lib/runtime/execute-task";
import { executeCancel } from "@/lib/runtime/execute-cancel";
import { notifyLoop } from "@/lib/notify/loop";
import { dueLoop } from "@/lib/runtime/due-loop";
import { emailLoop } from "@/lib/email/loop";
import { webhookLoop } from "@/lib/agent-protocol/webhook-loop";
import { emailAvailable } from "@/lib/settings/queries";
import { registeredDrivers } from "@/lib/drivers/registry";
import { beat, markStopped } from "@/lib/fleet/heartbeat";
import { retentionTick } from "@/lib/retention/job";
import { processSnapshot, setProcessLabel } from "@/lib/metrics/process";
import { log } from "@/lib/util/log";
import { instrumentLoop } from "@/lib/runtime/instrument";
import { reapOrphansOnce } from "@/lib/runtime/reap-orphans";
import { Loop } from "@/lib/fleet/loop";

/** How often each worker asks whether the fleet's retention job is due (one cheap claim statement). */
const RETENTION_CHECK_MS = 60_000;

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
  const logger = log("worker").child({ workerId: id });
  setProcessLabel(id);
  // Every in-flight row listens for the stop; a busy worker has far more than ten.
  setMaxListeners(1000, stopping);
  // The entry point set the drivers up (lib/drivers/setup.ts); without them every claim would fail, so fail here.
  logger.info(
    `drivers: ${registeredDrivers()
      .map(([name]) => name)
      .join(", ")}`,
  );
  const concurrency = opts.concurrency ?? env("HERALD_WORKER_CONCURRENCY");
  const pollMs = env("HERALD_POLL_MS");

  const loops: Pick<Loop<unknown>, "name" | "wake" | "start">[] = [
    new Loop(
      instrumentLoop({ name: "runs", concurrency, pollMs, claim: (n) => claimRuns(id, n), work: executeRun }, id),
      stopping,
    ),
    new Loop(
      instrumentLoop(
        {
          name: "tasks",
          concurrency,
          pollMs,
          claim: (n) => claimExecution(id, n),
          work: executeTask,
          nextWakeMs: nextExecutionDueMs,
        },
        id,
      ),
      stopping,
    ),
    new Loop(
      instrumentLoop(
        { name: "cancel", concurrency: 2, pollMs, claim: (n) => claimCancels(id, n), work: executeCancel },
        id,
      ),
      stopping,
    ),
    new Loop(instrumentLoop(notifyLoop(id), id), stopping),
    new Loop(instrumentLoop(dueLoop(), id), stopping),
    new Loop(instrumentLoop(webhookLoop(id), id), stopping),
    // Without SMTP_URL email is off: queued notices wait for a worker that has one (lib/email/state.ts E3).
    ...(emailAvailable() ? [new Loop(instrumentLoop(emailLoop(id), id), stopping)] : []),
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
    (m) => logger.warn(m),
  );
  await listener.start();
  // Each beat carries this worker's counters: /api/metrics serves them from the table.
  const beatNow = async () => beat(id, [...byName.keys()], startedAt, await processSnapshot());
  await beatNow();
  const heartbeat = setInterval(() => {
    beatNow().catch((err) => logger.error({ err }, "heartbeat failed"));
  }, env("HERALD_HEARTBEAT_MS"));

  // Every worker asks, at start and then every minute; the one whose claim moves the
  // fleet's schedule runs it (lib/retention/job.ts).
  const retentionCheck = () => void retentionTick(id).catch((err) => logger.error({ err }, "retention failed"));
  const retention = setInterval(retentionCheck, Math.min(RETENTION_CHECK_MS, env("HERALD_RETENTION_INTERVAL_MS")));
  retention.unref();
  retentionCheck();
  // Remote tasks a dead worker created but never stored (lib/runtime/reap-orphans.ts).
  const orphans = setInterval(() => {
    reapOrphansOnce(stopping).catch((err) => logger.error({ err }, "orphan reaper failed"));
  }, env("HERALD_ORPHAN_REAP_MS"));
  orphans.unref();

  const running = Promise.all(loops.map((l) => l.start()));
  logger.info(`started (loops: ${[...byName.keys()].join(", ")})`);

  return {
    id,
    async stop() {
      stopController.abort();
      clearInterval(heartbeat);
      clearInterval(retention);
      clearInterval(orphans);
      await running;
      await listener.stop();
      await markStopped(id).catch(() => {});
      await closeDb();
    },
  };
}
