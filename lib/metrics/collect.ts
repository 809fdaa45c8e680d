import { env } from "@/lib/config/env";
import { db } from "@/lib/db/kysely";
import { sql } from "kysely";
import { heartbeatStaleMs } from "@/lib/fleet/heartbeat";
import { singleFlight } from "./cache";
import { renderFleet } from "./fleet";
import type { ProcessSnapshot } from "./process";
import { QUEUES_COLUMN, QUEUES_CTE, renderQueues, type QueueRow } from "./queues";
import { literals } from "@/lib/db/sql-list";
import { RUN_ACTIVE_STATUSES } from "@/lib/contract/shapes";
import { ACTIVE_STATUSES } from "@/lib/contract/task";
import { EMAIL_CLAIMABLE } from "@/lib/email/state";

/**
 * Operator metrics in Prometheus text format, computed from the database (the
 * only shared state), so any web process answers for the whole deployment.
 * Aggregates only: no ids, titles or account data.
 *
 * Metric names and labels are scraped by dashboards outside this repo: add new
 * ones, never rename or drop one.
 */

/** Scrapes within this long after a collection reuse its text (see `singleFlight`). */
export const METRICS_CACHE_MS = 5_000;

interface Figures {
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

async function queryFigures(): Promise<Figures> {
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

const num = (v: unknown) => (v === null || v === undefined ? 0 : Number(v));

function render(f: Figures): string {
  const concurrency = env("HERALD_WORKER_CONCURRENCY");
  const alive = num(f.workers_alive);
  const busy = num(f.leased_runs) + num(f.leased_tasks);
  const out: string[] = [];
  const metric = (name: string, type: string, help: string, samples: [Record<string, string>, number][]) => {
    out.push(`# HELP ${name} ${help}`, `# TYPE ${name} ${type}`);
    for (const [labels, v] of samples) {
      const l = Object.entries(labels)
        .map(([k, x]) => `${k}="${x}"`)
        .join(",");
      out.push(`${name}${l ? `{${l}}` : ""} ${Number.isFinite(v) ? v : 0}`);
    }
  };
  metric(
    "herald_runs",
    "gauge",
    "Agent runs waiting or in progress (queue depth and concurrent runs).",
    f.runs.map((r) => [{ kind: String(r.kind), status: String(r.status) }, num(r.n)]),
  );
  metric(
    "herald_run_queue_wait_seconds",
    "gauge",
    "Time from a run being queued to a worker claiming it, last 15 minutes.",
    [
      [{ quantile: "0.5" }, num(f.run_wait_p50)],
      [{ quantile: "0.99" }, num(f.run_wait_p99)],
    ],
  );
  metric(
    "herald_tasks",
    "gauge",
    "Background tasks by status.",
    f.tasks.map((r) => [{ status: String(r.status) }, num(r.n)]),
  );
  metric(
    "herald_task_start_delay_seconds",
    "gauge",
    "Time from a task being started to its first execution, last hour.",
    [
      [{ quantile: "0.5" }, num(f.task_start_p50)],
      [{ quantile: "0.99" }, num(f.task_start_p99)],
    ],
  );
  metric(
    "herald_notifications",
    "gauge",
    "Task notification outbox rows by status.",
    f.notifications.map((r) => [{ status: String(r.status) }, num(r.n)]),
  );
  metric(
    "herald_notification_dead_letters",
    "gauge",
    "Notifications that stopped after their retry budget or a deleted conversation.",
    [[{}, num(f.notifications.find((r) => r.status === "dead_letter")?.n)]],
  );
  const emailIn = (state: string) => num(f.emails.find((r) => r.state === state)?.n);
  metric(
    "herald_email_outbox",
    "gauge",
    "Notice emails waiting, being sent or waiting to retry.",
    ["pending", "sending", "retry"].map((state) => [{ state }, emailIn(state)]),
  );
  metric(
    "herald_email_dead_letters",
    "gauge",
    "Notice emails given up on (permanent SMTP refusal or retry budget spent).",
    [[{}, emailIn("dead_letter")]],
  );
  metric(
    "herald_remote_orphans_cancelled_total",
    "counter",
    "Untracked remote tasks (created by a worker that died before storing the handle) the orphan reaper cancelled.",
    [[{}, num(f.orphans_cancelled)]],
  );
  metric(
    "herald_remote_orphans_pending",
    "gauge",
    "Untracked remote tasks seen and not cancelled yet (inside the grace period, or the remote refused).",
    [[{}, num(f.orphans_pending)]],
  );
  renderQueues(f.queues, metric);
  metric("herald_workers_alive", "gauge", "Workers with a fresh heartbeat.", [[{}, alive]]);
  metric(
    "herald_model_tokens",
    "gauge",
    "Model tokens the provider reported, on task and run rows still kept (input and output).",
    f.usage.flatMap(
      (u) =>
        [
          [{ work: u.work, direction: "input" }, num(u.input)],
          [{ work: u.work, direction: "output" }, num(u.output)],
        ] as [Record<string, string>, number][],
    ),
  );
  metric(
    "herald_model_cost_usd",
    "gauge",
    "Estimated model cost (HERALD_MODEL_PRICES) on task and run rows still kept; 0 without a price table.",
    f.usage.map((u) => [{ work: u.work }, num(u.cost)]),
  );
  metric(
    "herald_tasks_waiting_for_provider",
    "gauge",
    "Active tasks whose next step waits for a failing model provider.",
    [[{}, num(f.waiting_for_provider)]],
  );
  metric(
    "herald_worker_utilisation",
    "gauge",
    "Leased runs and task steps over the run and task capacity of live workers.",
    [[{}, alive ? busy / (alive * concurrency * 2) : 0]],
  );
  return `${out.join("\n")}\n`;
}

/** One uncached collection: one SQL statement. */
export async function collectMetrics(): Promise<string> {
  const figures = await queryFigures();
  return render(figures) + (await renderFleet(figures.fleet));
}

/**
 * What `/api/metrics` serves: scrapes arriving together share one collection,
 * and its text is reused for METRICS_CACHE_MS, so scrape rate never becomes
 * query rate on the shared pool.
 */
export const scrapeMetrics = singleFlight(collectMetrics, METRICS_CACHE_MS);
