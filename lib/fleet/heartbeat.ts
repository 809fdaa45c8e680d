import { env } from "@/lib/config/env";
import os from "node:os";
import { getDb } from "@/lib/db/client";

/** A worker that has not beaten for this long is considered dead. */
export const heartbeatStaleMs = () => env("HERALD_HEARTBEAT_STALE_MS");

/** `metrics`: the worker's own counters (lib/metrics/process.ts), kept as given; null leaves them out. */
export async function beat(workerId: string, loops: string[], startedAt: Date, metrics: unknown = null): Promise<void> {
  const snapshot = metrics === null ? null : JSON.stringify(metrics);
  await getDb().$executeRaw`
    INSERT INTO "worker_heartbeat" (id, host, pid, "startedAt", "lastBeatAt", loops, metrics)
    VALUES (${workerId}, ${os.hostname()}, ${process.pid}, ${startedAt}, now(), ${JSON.stringify(loops)}::jsonb, ${snapshot}::jsonb)
    ON CONFLICT (id) DO UPDATE SET "lastBeatAt" = now(), loops = EXCLUDED.loops, "stoppedAt" = NULL, metrics = EXCLUDED.metrics`;
}

export async function markStopped(workerId: string): Promise<void> {
  await getDb().$executeRaw`UPDATE "worker_heartbeat" SET "stoppedAt" = now() WHERE id = ${workerId}`;
}

export async function liveWorkers(): Promise<{ alive: number; lastBeatAt: string | null }> {
  const staleSeconds = heartbeatStaleMs() / 1000;
  const [row] = await getDb().$queryRaw<{ alive: bigint; last: Date | null }[]>`
    SELECT count(*) FILTER (WHERE "stoppedAt" IS NULL AND "lastBeatAt" > now() - make_interval(secs => ${staleSeconds})) AS alive,
           max("lastBeatAt") AS last
    FROM "worker_heartbeat"`;
  return { alive: Number(row.alive), lastBeatAt: row.last?.toISOString() ?? null };
}
