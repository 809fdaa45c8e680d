import type { DB } from "@/lib/db/generated/kysely.ts";
import { db } from "@/lib/db/kysely";
import { sql, type Insertable } from "kysely";

/** The worker_heartbeat row's statements; ./heartbeat.ts says when they run and what they mean. */

/** The worker's row, created on its first beat; a beat after a stop brings it back to life. */
export async function upsertHeartbeat(
  row: Pick<Insertable<DB["worker_heartbeat"]>, "id" | "host" | "pid" | "startedAt" | "loops" | "metrics">,
): Promise<void> {
  await db()
    .insertInto("worker_heartbeat")
    .values({ ...row, lastBeatAt: sql<Date>`now()` })
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

export async function setHeartbeatStopped(workerId: string): Promise<void> {
  await db()
    .updateTable("worker_heartbeat")
    .set({ stoppedAt: sql<Date>`now()` })
    .where("id", "=", workerId)
    .execute();
}

/** Workers not stopped that beat within `staleSeconds`, and the latest beat of any (null: no worker row yet). */
export async function countLiveWorkers(staleSeconds: number): Promise<{ alive: number; last: Date | null }> {
  return db()
    .selectFrom("worker_heartbeat")
    .select([
      sql<number>`(count(*) FILTER (WHERE "stoppedAt" IS NULL AND "lastBeatAt" > now() - make_interval(secs => ${staleSeconds})))::int`.as(
        "alive",
      ),
      (eb) => eb.fn.max<Date | null>("lastBeatAt").as("last"),
    ])
    .executeTakeFirstOrThrow();
}
