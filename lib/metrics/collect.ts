import { env } from "@/lib/config/env";
import { singleFlight } from "./cache";
import { renderFleet } from "./fleet";
import { renderQueues } from "./queues";
import { queryFigures, type Figures } from "./sql";

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
