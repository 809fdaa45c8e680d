import type { LoopSpec } from "@/lib/fleet/loop";
import { log, withLogContext, type LogIds } from "@/lib/util/log";
import {
  busySeconds,
  busySlots,
  claimed,
  claimFailures,
  emailsFailed,
  emailsSent,
  leaseRecoveries,
  queueWait,
  slots,
  startDelay,
  workFailures,
} from "@/lib/metrics/process";

/**
 * Wraps a loop's claim and work with what an operator needs, without touching
 * the loop itself: every line logged while a row is worked carries its ids
 * (lib/util/log.ts), and the per-process figures (lib/metrics/process.ts) count
 * claims, waits, busy time, failures, recoveries and email outcomes.
 *
 * Claims return their rows after the UPDATE, so a wait is read from what the
 * row still says: a run's first claim sets startedAt in SQL (database clock on
 * both sides); a task's step keeps nextRunAt, compared with this worker's clock.
 */
type Row = Record<string, unknown>;

const seconds = (from: unknown, to: unknown) =>
  from instanceof Date && to instanceof Date ? Math.max(0, (to.getTime() - from.getTime()) / 1000) : null;

/** The ids of a claimed row, whatever the loop (a row, a fence or a bare task id). */
export function rowIds(loop: string, row: unknown): LogIds {
  if (typeof row === "string") return { taskId: row };
  const r = (row ?? {}) as Row;
  const str = (v: unknown) => (typeof v === "string" ? v : undefined);
  const ids: LogIds = { accountId: str(r.ownerId), conversationId: str(r.conversationId), taskId: str(r.taskId) };
  if (loop === "runs") ids.runId = str(r.id);
  else if (loop === "email") ids.noticeId = str(r.id);
  else ids.taskId = str(r.id);
  for (const k of Object.keys(ids) as (keyof LogIds)[]) if (ids[k] === undefined) delete ids[k];
  return ids;
}

function observeClaim(loop: string, row: unknown, now: Date): void {
  const r = (row ?? {}) as Row;
  if (loop === "runs") {
    const attempts = Number(r.attempts ?? 1);
    // A release on shutdown gives the attempt back, so a second attempt means the first one's lease ran out.
    if (attempts > 1) leaseRecoveries.inc({ loop });
    else {
      const wait = seconds(r.createdAt, r.startedAt);
      if (wait !== null) {
        queueWait.observe({ loop }, wait);
        startDelay.observe({ kind: "run" }, wait);
      }
    }
  } else if (loop === "tasks") {
    const wait = seconds(r.nextRunAt, now);
    if (wait !== null) queueWait.observe({ loop }, wait);
    if (r.status === "submitted" && Number(r.attempts) === 1) {
      const delay = seconds(r.createdAt, now);
      if (delay !== null) startDelay.observe({ kind: "task" }, delay);
    }
  }
}

function countOutcome(loop: string, result: unknown): void {
  if (loop !== "email") return;
  // lib/email/state.ts: E7 sent, E8 retry, E9 dead letter.
  if (result === "E7") emailsSent.inc();
  else if (result === "E8") emailsFailed.inc({ outcome: "retry" });
  else if (result === "E9") emailsFailed.inc({ outcome: "dead_letter" });
}

export function instrumentLoop<R>(spec: LoopSpec<R>, workerId: string): LoopSpec<R> {
  const loop = spec.name;
  const logger = log("loop");
  slots.set({ loop }, spec.concurrency);
  busySlots.set({ loop }, 0);
  return {
    ...spec,
    async claim(limit) {
      try {
        const rows = await spec.claim(limit);
        const now = new Date();
        claimed.inc({ loop }, rows.length);
        for (const row of rows) observeClaim(loop, row, now);
        return rows;
      } catch (err) {
        claimFailures.inc({ loop });
        throw err;
      }
    },
    work(row, stopping) {
      return withLogContext({ ...rowIds(loop, row), workerId, loop }, async () => {
        busySlots.inc({ loop });
        const t0 = performance.now();
        try {
          const result = await spec.work(row, stopping);
          countOutcome(loop, result);
          return result;
        } catch (err) {
          workFailures.inc({ loop });
          throw err;
        } finally {
          busySlots.dec({ loop });
          busySeconds.inc({ loop }, (performance.now() - t0) / 1000);
        }
      });
    },
    log: (msg, err) => (err ? logger.error({ err, loop, workerId }, msg) : logger.warn({ loop, workerId }, msg)),
  };
}
