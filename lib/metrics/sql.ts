import { db } from "@/lib/db/kysely";
import { sql } from "kysely";
import { heartbeatStaleMs } from "@/lib/fleet/heartbeat";
import type { ProcessSnapshot } from "./process";
import { QUEUES_COLUMN, QUEUES_CTE, type QueueRow } from "./queues-sql";
import { literals } from "@/lib/db/sql-list";
import { RUN_ACTIVE_STATUSES } from "@/lib/contract/shapes";
import { ACTIVE_STATUSES } from "@/lib/contract/task";
import { EMAIL_CLAIMABLE } from "@/lib/email/state";

/** The database's figures behind /api/metrics (lib/metrics/collect.ts renders them). */
export interface Figures {
  runs: { kind: string; status: string; n: number }[];
  tasks: { status: string; n: number }[];
  notifications: { status: string; n: number }[];
  emails: { state: string; n: number }[];
  run_wait_p50: number | null;
  run_wait_p99: number | null;
  task_start_p50: number | null;
  task_start_p99: number | null;
  workers_alive: number;
  leased_runs: number;
  leased_tasks: number;
  usage: { work: string; input: number; output: number; cost: number | null }[];
  waiting_for_provider: number;
  orphans_cancelled: number;
  orphans_pending: number;
  queues: QueueRow[] | null;
  fleet: ProcessSnapshot[] | null;
}

/**
 * Every figure in one statement:
 * - active runs (and their leases) come from the partial index `run_due_idx`
 *   (status IN ('queued','running')), never from finished history;
 * - the run queue wait is a 15-minute window on "createdAt"; nothing indexes
 *   that column alone, so Postgres 18 skip-scans (ownerId, createdAt) and older
 *   servers scan the table;
 * - task and notification counts cover every task ever started, so the task
 *   table is read exactly once, grouped by (status, notificationStatus), and the
 *   lease count and the last hour's start delays ride along in that same pass;
 * - live workers come from the small heartbeat table.
 */
const RUN_ACTIVE = literals(RUN_ACTIVE_STATUSES);
const TASK_ACTIVE = literals(ACTIVE_STATUSES);
const EMAIL_OPEN = literals(EMAIL_CLAIMABLE);

export async function queryFigures(): Promise<Figures> {
  const stale = heartbeatStaleMs() / 1000;
  const {
    rows: [row],
  } = await sql<Figures>`
    WITH active_runs AS (
      SELECT kind, status, count(*)::int AS n,
             count(*) FILTER (WHERE status = 'running' AND "leaseExpiresAt" > now())::int AS leased
      FROM "run" WHERE status IN ${RUN_ACTIVE}
      GROUP BY kind, status
    ), run_waits AS (
      SELECT extract(epoch FROM ("startedAt" - "createdAt"))::float8 AS s
      FROM "run" WHERE "startedAt" IS NOT NULL AND "createdAt" > now() - interval '15 minutes'
    ), task_groups AS (
      SELECT status, "notificationStatus" AS notification, count(*)::int AS n,
             count(*) FILTER (WHERE "leaseExpiresAt" > now())::int AS leased,
             sum("inputTokens")::float8 AS input_tokens, sum("outputTokens")::float8 AS output_tokens, sum("costUsd")::float8 AS cost,
             count(*) FILTER (WHERE "providerWaitSince" IS NOT NULL)::int AS waiting,
             array_agg(extract(epoch FROM ("startedAt" - "createdAt"))::float8)
               FILTER (WHERE "startedAt" IS NOT NULL AND "createdAt" > now() - interval '1 hour') AS delays
      FROM "task"
      GROUP BY status, "notificationStatus"
    ), ${QUEUES_CTE}
    SELECT
      (SELECT coalesce(json_agg(json_build_object('kind', kind, 'status', status, 'n', n) ORDER BY kind, status), '[]'::json)
         FROM active_runs) AS runs,
      (SELECT coalesce(json_agg(json_build_object('status', status, 'n', n) ORDER BY status), '[]'::json)
         FROM (SELECT status, sum(n)::int AS n FROM task_groups GROUP BY status) t) AS tasks,
      (SELECT coalesce(json_agg(json_build_object('status', notification, 'n', n) ORDER BY notification), '[]'::json)
         FROM (SELECT notification, sum(n)::int AS n FROM task_groups GROUP BY notification) t) AS notifications,
      -- Two partial indexes (notice_email_due_idx, notice_email_dead_idx): sent and skipped rows are never read.
      (SELECT coalesce(json_agg(json_build_object('state', state, 'n', n) ORDER BY state), '[]'::json)
         FROM (SELECT "emailState" AS state, count(*)::int AS n FROM "notice"
                 WHERE "emailState" IN ${EMAIL_OPEN} GROUP BY "emailState"
               UNION ALL
               SELECT 'dead_letter', count(*)::int FROM "notice" WHERE "emailState" = 'dead_letter') e) AS emails,
      rw.p50 AS run_wait_p50, rw.p99 AS run_wait_p99,
      ts.p50 AS task_start_p50, ts.p99 AS task_start_p99,
      (SELECT count(*)::int FROM "worker_heartbeat"
         WHERE "stoppedAt" IS NULL AND "lastBeatAt" > now() - make_interval(secs => ${stale})) AS workers_alive,
      (SELECT coalesce(sum(leased), 0)::int FROM active_runs) AS leased_runs,
      (SELECT coalesce(sum(leased), 0)::int FROM task_groups) AS leased_tasks,
      -- Tokens on the rows still kept (the retention job deletes old runs): runs are read once more, tasks ride along.
      json_build_array(
        (SELECT json_build_object('work', 'task', 'input', coalesce(sum(input_tokens), 0), 'output', coalesce(sum(output_tokens), 0), 'cost', sum(cost))
           FROM task_groups),
        (SELECT json_build_object('work', 'run', 'input', coalesce(sum("inputTokens"), 0)::float8, 'output', coalesce(sum("outputTokens"), 0)::float8,
                'cost', sum("costUsd")::float8) FROM "run")) AS usage,
      (SELECT coalesce(sum(waiting), 0)::int FROM task_groups WHERE status IN ${TASK_ACTIVE})
        AS waiting_for_provider,
      -- Small: only remote tasks a dead worker left untracked (lib/runtime/orphans-sql.ts).
      (SELECT count(*)::int FROM "remote_orphan" WHERE "cancelledAt" IS NOT NULL) AS orphans_cancelled,
      (SELECT count(*)::int FROM "remote_orphan" WHERE "cancelledAt" IS NULL) AS orphans_pending,
      ${QUEUES_COLUMN},
      -- Each live worker's own counters and histograms, stored by its heartbeat (lib/metrics/process.ts).
      (SELECT json_agg(metrics) FROM "worker_heartbeat"
         WHERE metrics IS NOT NULL AND "stoppedAt" IS NULL
           AND "lastBeatAt" > now() - make_interval(secs => ${stale})) AS fleet
    FROM (SELECT percentile_cont(0.5) WITHIN GROUP (ORDER BY s) AS p50,
                 percentile_cont(0.99) WITHIN GROUP (ORDER BY s) AS p99
            FROM run_waits) rw,
         (SELECT percentile_cont(0.5) WITHIN GROUP (ORDER BY s) AS p50,
                 percentile_cont(0.99) WITHIN GROUP (ORDER BY s) AS p99
            FROM task_groups, unnest(delays) AS s) ts`.execute(db());
  return row;
}
