import { liveWorkers } from "@/lib/fleet/heartbeat";
import { log } from "@/lib/util/log";
import { singleFlight } from "./cache";

/**
 * `/api/health` is public (load balancers, `npm start`, the e2e suite probe it
 * without a session), so its body is a fixed whitelist: the contract's (docs/api.md#operator-endpoints)
 * `{db, workers: {alive, lastBeatAt}}` and nothing else. No versions, hosts,
 * ports or error text: failures are logged here, never sent.
 */
export interface Health {
  db: "ok" | "down";
  workers: { alive: number; lastBeatAt: string | null };
}

/** A database that has not answered by then is reported down rather than hanging the probe. */
export const HEALTH_TIMEOUT_MS = 3_000;
/** Probes within this long share one database round trip. */
export const HEALTH_CACHE_MS = 1_000;

const DOWN: Health = { db: "down", workers: { alive: 0, lastBeatAt: null } };

async function probe(): Promise<Health> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${HEALTH_TIMEOUT_MS} ms`)), HEALTH_TIMEOUT_MS);
  });
  try {
    // The heartbeat query is the database check too: one round trip.
    const w = await Promise.race([liveWorkers(), timeout]);
    return { db: "ok", workers: { alive: w.alive, lastBeatAt: w.lastBeatAt } };
  } catch (err) {
    log("health").error({ err }, "database check failed");
    return DOWN;
  } finally {
    clearTimeout(timer);
  }
}

/** Unauthenticated callers cannot turn probe rate into query rate on the shared pool. */
export const checkHealth = singleFlight(probe, HEALTH_CACHE_MS);
