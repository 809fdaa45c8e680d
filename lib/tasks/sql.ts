import { getDb, type Tx } from "@/lib/db/client";
import type { Task } from "@/lib/db/generated/client.ts";

/**
 * Every claim and guard of the task execution and cancel loops lives here.
 *
 * Task lifecycle (status; `cancel` = cancelRequestedAt set):
 *
 *   from                      event                                   to              guard
 *   ------------------------  --------------------------------------  --------------  ---------------------------------------
 *   (none)                    start (API / agent tool)                submitted       owner's live conversation; clientRequestId unique
 *   submitted                 exec claim → driver.submit → handle     queued          exec token mine, lease alive, no cancel
 *   queued|running|updating   exec claim                              running         SKIP LOCKED, nextRunAt ≤ now(), lease free
 *   running                   step committed (checkpoint)             running         token mine, lease alive, no cancel, not terminal
 *   running                   last step committed (final body)        succeeded       same
 *   running                   5 consecutive step errors / protocol    failed          same
 *   running|queued            update(message)                         updating        not terminal; next step consumes it → running
 *   running                   remote poll says input_required         input_required  same guard; an outbox event (notice + narration)
 *   input_required            answer stored, next claim → driver      running         same guard; polled again at once
 *   running|input_required    3rd consecutive poll error              (same)          event "tracking degraded"; remote drivers never give up
 *   any active                cancel request (first)                  (same) + cancel sets fence, drops exec lease; repeats change nothing
 *   any active + cancel       cancel claim → driver.cancel            cancelled       cancel token mine, lease alive, not terminal
 *                                                                      (or the driver's real terminal status)
 *   terminal                  anything                                (unchanged)     —
 *
 * Execution and cancel use separate lease tokens; a crash needs no recovery
 * code, the lease expires and the row is claimable again.
 */
export const TASK_LEASE_MS = Number(process.env.HERALD_TASK_LEASE_MS ?? 15_000);
export const TASK_RETRY_BASE_MS = Number(process.env.HERALD_TASK_RETRY_MS ?? 2_000);
export const TASK_RETRY_CAP_MS = Number(process.env.HERALD_TASK_RETRY_CAP_MS ?? 300_000);
export const TASK_MAX_CONSECUTIVE_ERRORS = 5;

const secs = (ms: number) => ms / 1000;
export const backoffMs = (failures: number, base = TASK_RETRY_BASE_MS, cap = TASK_RETRY_CAP_MS) =>
  Math.min(base * 2 ** Math.min(failures, 16), cap);

export type LeasedTask = Task & { leaseToken: string };
export type CancelLeasedTask = Task & { cancelLeaseToken: string };

/** `onlyIds` narrows the claim to given rows (tests drive one task by hand). */
export async function claimExecution(workerId: string, limit: number, onlyIds?: string[]): Promise<LeasedTask[]> {
  if (limit <= 0) return [];
  const only = onlyIds ?? null;
  return getDb().$queryRaw<LeasedTask[]>`
    UPDATE "task" t
    SET "leaseOwner" = ${workerId}, "leaseToken" = gen_random_uuid()::text,
        "leaseExpiresAt" = now() + make_interval(secs => ${secs(TASK_LEASE_MS)}),
        attempts = t.attempts + 1
    WHERE t.id IN (
      SELECT id FROM "task"
      WHERE status IN ('submitted', 'queued', 'running', 'updating', 'input_required') AND "cancelRequestedAt" IS NULL
        AND "nextRunAt" <= now() AND ("leaseExpiresAt" IS NULL OR "leaseExpiresAt" < now())
        AND (${only}::text[] IS NULL OR id = ANY(${only}::text[]))
      ORDER BY "nextRunAt", id
      LIMIT ${limit}
      FOR UPDATE SKIP LOCKED)
    RETURNING t.*`;
}

/** Locks the row for a post-work write, only if our execution lease still holds. */
export async function lockExecutionGuarded(tx: Tx, id: string, token: string): Promise<Task | null> {
  const rows = await tx.$queryRaw<Task[]>`
    SELECT * FROM "task"
    WHERE id = ${id} AND "leaseToken" = ${token} AND "leaseExpiresAt" > now()
      AND "cancelRequestedAt" IS NULL AND status NOT IN ('succeeded', 'failed', 'cancelled')
    FOR UPDATE`;
  return rows[0] ?? null;
}

export async function renewExecutionLease(id: string, token: string): Promise<boolean> {
  const n = await getDb().$executeRaw`
    UPDATE "task" SET "leaseExpiresAt" = now() + make_interval(secs => ${secs(TASK_LEASE_MS)})
    WHERE id = ${id} AND "leaseToken" = ${token} AND "leaseExpiresAt" > now() AND "cancelRequestedAt" IS NULL`;
  return n === 1;
}

export async function countTaskModelRequest(id: string, token: string): Promise<boolean> {
  const n = await getDb().$executeRaw`
    UPDATE "task" SET "modelRequests" = "modelRequests" + 1
    WHERE id = ${id} AND "leaseToken" = ${token} AND "cancelRequestedAt" IS NULL`;
  return n === 1;
}

/** Gives the row back (shutdown: not counted; transient error: counted, with backoff from now). */
export async function releaseExecution(id: string, token: string, error: string | null, delayMs: number, counted: boolean) {
  return getDb().$executeRaw`
    UPDATE "task" SET "leaseOwner" = NULL, "leaseToken" = NULL, "leaseExpiresAt" = NULL,
      "nextRunAt" = now() + make_interval(secs => ${secs(delayMs)}),
      "consecutiveErrors" = "consecutiveErrors" + ${counted ? 1 : 0},
      attempts = attempts - ${counted ? 0 : 1},
      error = coalesce(${error}, error)
    WHERE id = ${id} AND "leaseToken" = ${token}`;
}

export async function claimCancels(workerId: string, limit: number): Promise<CancelLeasedTask[]> {
  if (limit <= 0) return [];
  return getDb().$queryRaw<CancelLeasedTask[]>`
    UPDATE "task" t
    SET "cancelLeaseOwner" = ${workerId}, "cancelLeaseToken" = gen_random_uuid()::text,
        "cancelLeaseExpiresAt" = now() + make_interval(secs => ${secs(TASK_LEASE_MS)}),
        "cancelAttempts" = t."cancelAttempts" + 1
    WHERE t.id IN (
      SELECT id FROM "task"
      WHERE "cancelRequestedAt" IS NOT NULL AND status NOT IN ('succeeded', 'failed', 'cancelled')
        AND "nextCancelAt" <= now() AND ("cancelLeaseExpiresAt" IS NULL OR "cancelLeaseExpiresAt" < now())
      ORDER BY "nextCancelAt", id
      LIMIT ${limit}
      FOR UPDATE SKIP LOCKED)
    RETURNING t.*`;
}

export async function lockCancelGuarded(tx: Tx, id: string, token: string): Promise<Task | null> {
  const rows = await tx.$queryRaw<Task[]>`
    SELECT * FROM "task"
    WHERE id = ${id} AND "cancelLeaseToken" = ${token} AND "cancelLeaseExpiresAt" > now()
      AND status NOT IN ('succeeded', 'failed', 'cancelled')
    FOR UPDATE`;
  return rows[0] ?? null;
}

/** Remote cancel failed: retry later, backoff measured from now (the failed call's end). */
export async function releaseCancel(id: string, token: string, error: string, attempts: number) {
  return getDb().$executeRaw`
    UPDATE "task" SET "cancelLeaseOwner" = NULL, "cancelLeaseToken" = NULL, "cancelLeaseExpiresAt" = NULL,
      "lastCancelError" = ${error.slice(0, 4000)},
      "nextCancelAt" = now() + make_interval(secs => ${secs(backoffMs(Math.max(attempts - 1, 0)))})
    WHERE id = ${id} AND "cancelLeaseToken" = ${token}`;
}

/** The earliest time the execution loop has work (for sleeping instead of polling blindly). */
export async function nextExecutionDueMs(): Promise<number | null> {
  const [row] = await getDb().$queryRaw<{ ms: number | null }[]>`
    SELECT (extract(epoch FROM (min(greatest("nextRunAt", coalesce("leaseExpiresAt", "nextRunAt"))) - now())) * 1000)::float8 AS ms
    FROM "task"
    WHERE status IN ('submitted', 'queued', 'running', 'updating', 'input_required') AND "cancelRequestedAt" IS NULL`;
  return row?.ms === null || row?.ms === undefined ? null : Math.max(0, row.ms);
}
