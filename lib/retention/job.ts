import { env } from "@/lib/config/env";
import { log } from "@/lib/util/log";
import {
  claimJob,
  deleteDeadHeartbeats,
  deleteExpiredSessions,
  deleteExpiredVerifications,
  deleteOldEvents,
  finishJob,
  RETENTION_BATCH,
} from "./sql";

export const RETENTION_JOB = "retention";
/** Batches per table per run: a huge backlog is worked off over several runs instead of one long one. */
const MAX_BATCHES = 200;

export interface RetentionResult {
  events: number;
  heartbeats: number;
  sessions: number;
  verifications: number;
}

/**
 * Repeats a batch until it comes back short. A LIMITed delete is done when it
 * deletes fewer than its limit; the event batch deletes whole account prefixes
 * (more or fewer than the batch size), so it is done only when it deletes none.
 */
async function drain(batch: () => Promise<number>, doneBelow = RETENTION_BATCH): Promise<number> {
  let total = 0;
  for (let i = 0; i < MAX_BATCHES; i++) {
    const n = await batch();
    total += n;
    if (n < doneBelow) break;
  }
  return total;
}

/** Deletes what retention allows (lib/retention/sql.ts says what and why), in short batches. */
export async function runRetention(): Promise<RetentionResult> {
  const days = env("HERALD_EVENT_RETENTION_DAYS");
  return {
    events: await drain(() => deleteOldEvents(days), 1),
    heartbeats: await deleteDeadHeartbeats(),
    sessions: await drain(deleteExpiredSessions),
    verifications: await drain(deleteExpiredVerifications),
  };
}

/**
 * Runs the job if it is due fleet-wide; every worker calls this on a timer and
 * only the one whose claim moved the schedule forward does the work. Null when
 * another worker has (or had) this interval.
 */
export async function retentionTick(
  owner: string,
  everyMs = env("HERALD_RETENTION_INTERVAL_MS"),
): Promise<RetentionResult | null> {
  if (!(await claimJob(RETENTION_JOB, owner, everyMs))) return null;
  const started = performance.now();
  const result = await runRetention();
  await finishJob(RETENTION_JOB, owner, result);
  log("retention").info({ ...result, ms: Math.round(performance.now() - started) }, "retention run finished");
  return result;
}
