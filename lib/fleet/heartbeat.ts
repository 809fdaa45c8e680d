import { env } from "@/lib/config/env";
import os from "node:os";
import { jsonb } from "@/lib/db/kysely";
import { countLiveWorkers, setHeartbeatStopped, upsertHeartbeat } from "./sql";

/** A worker that has not beaten for this long is considered dead. */
export const heartbeatStaleMs = () => env("HERALD_HEARTBEAT_STALE_MS");

/** `metrics`: the worker's own counters (lib/metrics/process.ts), kept as given; null leaves them out. */
export async function beat(workerId: string, loops: string[], startedAt: Date, metrics: unknown = null): Promise<void> {
  await upsertHeartbeat({
    id: workerId,
    host: os.hostname(),
    pid: process.pid,
    startedAt,
    loops: jsonb(loops),
    metrics: jsonb(metrics),
  });
}

export async function markStopped(workerId: string): Promise<void> {
  await setHeartbeatStopped(workerId);
}

export async function liveWorkers(): Promise<{ alive: number; lastBeatAt: string | null }> {
  const row = await countLiveWorkers(heartbeatStaleMs() / 1000);
  return { alive: row.alive, lastBeatAt: row.last?.toISOString() ?? null };
}
