import { env } from "@/lib/config/env";
import os from "node:os";
import { db, jsonb } from "@/lib/db/kysely";
import { sql } from "kysely";

/** A worker that has not beaten for this long is considered dead. */
export const heartbeatStaleMs = () => env("HERALD_HEARTBEAT_STALE_MS");

/** `metrics`: the worker's own counters (lib/metrics/process.ts), kept as given; null leaves them out. */
export async function beat(workerId: string, loops: string[], startedAt: Date, metrics: unknown = null): Promise<void> {
  await db()
    .insertInto("worker_heartbeat")
    .values({
      id: workerId,
      host: os.hostname(),
      pid: process.pid,
      startedAt,
      lastBeatAt: sql<Date>`now()`,
      loops: jsonb(loops),
      metrics: jsonb(metrics),
    })
    .onConflict((oc) =>
      oc.column("id").doUpdateSet((eb) => ({
        lastBeatAt: sql<Date>`now()`,
        loops: eb.ref("excluded.loops"),
        stoppedAt: null,
        metrics: eb.ref("excluded.metrics"),
      })),
    )
    .execute();
}

export async function markStopped(workerId: string): Promise<void> {
  await db()
    .updateTable("worker_heartbeat")
    .set({ stoppedAt: sql<Date>`now()` })
    .where("id", "=", workerId)
    .execute();
}

export async function liveWorkers(): Promise<{ alive: number; lastBeatAt: string | null }> {
  const staleSeconds = heartbeatStaleMs() / 1000;
  const row = await db()
    .selectFrom("worker_heartbeat")
    .select([
      sql<number>`(count(*) FILTER (WHERE "stoppedAt" IS NULL AND "lastBeatAt" > now() - make_interval(secs => ${staleSeconds})))::int`.as(
        "alive",
      ),
      (eb) => eb.fn.max<Date | null>("lastBeatAt").as("last"),
    ])
    .executeTakeFirstOrThrow();
  return { alive: row.alive, lastBeatAt: row.last?.toISOString() ?? null };
}
