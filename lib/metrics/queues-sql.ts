import { literals } from "@/lib/db/sql-list";
import { sql } from "kysely";
import { RUN_ACTIVE_STATUSES } from "@/lib/contract/shapes";
import { ACTIVE_STATUSES, TERMINAL_STATUSES } from "@/lib/contract/task";
import { EMAIL_CLAIMABLE } from "@/lib/email/state";
import { CLAIMABLE as NOTIFY_CLAIMABLE } from "@/lib/notify/state";

/**
 * Queue depth, oldest due age and expired leases per loop, as parts of
 * the figures statement (lib/metrics/sql.ts). Each row set repeats the WHERE of its loop's
 * claim (lib/runs/sql.ts, lib/tasks/sql.ts, lib/notify/sql.ts, lib/email/sql.ts,
 * lib/delivery/sql.ts) closely enough for the same partial index to serve it,
 * so only rows that are waiting are read, never finished history.
 *
 * "Expired lease" = a lease still held whose time ran out: its holder crashed
 * or stalled, and the next claim recovers the row (lease expiries = crash
 * recoveries waiting to happen; herald_lease_recoveries_total counts the
 * recoveries a worker made).
 */
export interface QueueRow {
  loop: string;
  depth: number;
  oldest: number | null;
  expired: number;
}

// The loops' own lists (never retyped): a status added to a state module reaches the gauges too.
const ACTIVE = literals(ACTIVE_STATUSES);
const TERMINAL = literals(TERMINAL_STATUSES);
const NOTIFY_OPEN = literals(NOTIFY_CLAIMABLE);
const EMAIL_OPEN = literals(EMAIL_CLAIMABLE);
const RUN_ACTIVE = literals(RUN_ACTIVE_STATUSES);

/** A CTE named `queue_rows` (loop, depth, oldest seconds, expired leases); join it with `, ` into the WITH list. */
export const QUEUES_CTE = sql`queue_rows AS (
      SELECT 'runs' AS loop, count(*)::int AS depth,
             extract(epoch FROM now() - min("createdAt"))::float8 AS oldest,
             count(*) FILTER (WHERE status = 'running')::int AS expired
      FROM "run" WHERE status IN ${RUN_ACTIVE} AND (status = 'queued' OR "leaseExpiresAt" < now())
      UNION ALL
      SELECT 'tasks', count(*)::int, extract(epoch FROM now() - min("nextRunAt"))::float8, 0
      FROM "task" WHERE status IN ${ACTIVE} AND "cancelRequestedAt" IS NULL AND "nextRunAt" <= now()
        AND ("leaseExpiresAt" IS NULL OR "leaseExpiresAt" < now())
      UNION ALL
      SELECT 'cancel', count(*)::int, extract(epoch FROM now() - min("nextCancelAt"))::float8,
             count(*) FILTER (WHERE "cancelLeaseToken" IS NOT NULL)::int
      FROM "task" WHERE "cancelRequestedAt" IS NOT NULL AND status NOT IN ${TERMINAL} AND "nextCancelAt" <= now()
        AND ("cancelLeaseExpiresAt" IS NULL OR "cancelLeaseExpiresAt" < now())
      UNION ALL
      SELECT 'notify', count(*)::int, extract(epoch FROM now() - min(coalesce("nextNotificationAt", "updatedAt")))::float8, 0
      FROM "task" WHERE "notificationStatus" IN ${NOTIFY_OPEN} AND "eventVersion" > "notifiedVersion"
        AND ("notifyLeaseExpiresAt" IS NULL OR "notifyLeaseExpiresAt" < now())
        AND ("nextNotificationAt" IS NULL OR "nextNotificationAt" <= now())
      UNION ALL
      SELECT 'email', count(*)::int, extract(epoch FROM now() - min(coalesce("emailNextAt", "createdAt")))::float8,
             count(*) FILTER (WHERE "emailLeaseToken" IS NOT NULL)::int
      FROM "notice" WHERE "emailState" IN ${EMAIL_OPEN}
        AND ("emailNextAt" IS NULL OR "emailNextAt" <= now())
        AND ("emailLeaseUntil" IS NULL OR "emailLeaseUntil" < now())
      UNION ALL
      SELECT 'due', count(*)::int, extract(epoch FROM now() - min("dueAt"))::float8, 0
      FROM "task" WHERE "dueAt" IS NOT NULL AND "dueEvaluatedAt" IS NULL AND "dueAt" <= now()
    ), task_leases AS (
      -- Two more partial indexes (task_exec_lease_idx, task_notify_lease_idx): held leases only.
      SELECT (SELECT count(*)::int FROM "task" WHERE "leaseToken" IS NOT NULL AND "leaseExpiresAt" < now()
                AND status IN ${ACTIVE}) AS tasks,
             (SELECT count(*)::int FROM "task" WHERE "notifyLeaseToken" IS NOT NULL AND "notifyLeaseExpiresAt" < now()
                AND "notificationStatus" IN ${NOTIFY_OPEN}) AS notify
    )`;

/** The select-list column carrying the rows above as JSON (alias `queues`). */
export const QUEUES_COLUMN = sql`(SELECT json_agg(json_build_object(
        'loop', q.loop, 'depth', q.depth, 'oldest', q.oldest,
        'expired', q.expired + CASE q.loop WHEN 'tasks' THEN l.tasks WHEN 'notify' THEN l.notify ELSE 0 END))
      FROM queue_rows q, task_leases l) AS queues`;
