import { getDb } from "@/lib/db/client";
import { HEARTBEAT_STALE_MS } from "@/lib/workers/heartbeat";

/**
 * Operator metrics in Prometheus text format, computed from the database (the
 * only shared state), so any web process answers for the whole deployment.
 * Aggregates only: no ids, titles or account data.
 */
interface Row {
  [k: string]: number | bigint | string | null;
}

const num = (v: unknown) => (v === null || v === undefined ? 0 : Number(v));

export async function collectMetrics(): Promise<string> {
  const db = getDb();
  const stale = HEARTBEAT_STALE_MS / 1000;
  const [runs, waits, tasks, starts, notify, workers, leased] = await Promise.all([
    db.$queryRaw<Row[]>`SELECT kind, status, count(*)::int AS n FROM "run" WHERE status IN ('queued', 'running') GROUP BY kind, status`,
    db.$queryRaw<Row[]>`
      SELECT percentile_cont(0.5) WITHIN GROUP (ORDER BY extract(epoch FROM ("startedAt" - "createdAt"))) AS p50,
             percentile_cont(0.99) WITHIN GROUP (ORDER BY extract(epoch FROM ("startedAt" - "createdAt"))) AS p99,
             count(*)::int AS n
      FROM "run" WHERE "startedAt" IS NOT NULL AND "createdAt" > now() - interval '15 minutes'`,
    db.$queryRaw<Row[]>`SELECT status, count(*)::int AS n FROM "task" GROUP BY status`,
    db.$queryRaw<Row[]>`
      SELECT percentile_cont(0.5) WITHIN GROUP (ORDER BY extract(epoch FROM ("startedAt" - "createdAt"))) AS p50,
             percentile_cont(0.99) WITHIN GROUP (ORDER BY extract(epoch FROM ("startedAt" - "createdAt"))) AS p99
      FROM "task" WHERE "startedAt" IS NOT NULL AND "createdAt" > now() - interval '1 hour'`,
    db.$queryRaw<Row[]>`SELECT "notificationStatus" AS status, count(*)::int AS n FROM "task" GROUP BY "notificationStatus"`,
    db.$queryRaw<Row[]>`
      SELECT count(*)::int AS alive, coalesce(sum(jsonb_array_length(loops)), 0)::int AS loops
      FROM "worker_heartbeat" WHERE "stoppedAt" IS NULL AND "lastBeatAt" > now() - make_interval(secs => ${stale})`,
    db.$queryRaw<Row[]>`
      SELECT (SELECT count(*) FROM "run" WHERE status = 'running' AND "leaseExpiresAt" > now())::int AS runs,
             (SELECT count(*) FROM "task" WHERE "leaseExpiresAt" > now())::int AS tasks`,
  ]);
  const concurrency = Number(process.env.HERALD_WORKER_CONCURRENCY ?? 4);
  const alive = num(workers[0]?.alive);
  const busy = num(leased[0]?.runs) + num(leased[0]?.tasks);
  const out: string[] = [];
  const metric = (name: string, type: string, help: string, samples: [Record<string, string>, number][]) => {
    out.push(`# HELP ${name} ${help}`, `# TYPE ${name} ${type}`);
    for (const [labels, v] of samples) {
      const l = Object.entries(labels).map(([k, x]) => `${k}="${x}"`).join(",");
      out.push(`${name}${l ? `{${l}}` : ""} ${Number.isFinite(v) ? v : 0}`);
    }
  };
  metric("herald_runs", "gauge", "Agent runs waiting or in progress (queue depth and concurrent runs).",
    runs.map((r) => [{ kind: String(r.kind), status: String(r.status) }, num(r.n)]));
  metric("herald_run_queue_wait_seconds", "gauge", "Time from a run being queued to a worker claiming it, last 15 minutes.", [
    [{ quantile: "0.5" }, num(waits[0]?.p50)],
    [{ quantile: "0.99" }, num(waits[0]?.p99)],
  ]);
  metric("herald_tasks", "gauge", "Background tasks by status.", tasks.map((r) => [{ status: String(r.status) }, num(r.n)]));
  metric("herald_task_start_delay_seconds", "gauge", "Time from a task being started to its first execution, last hour.", [
    [{ quantile: "0.5" }, num(starts[0]?.p50)],
    [{ quantile: "0.99" }, num(starts[0]?.p99)],
  ]);
  metric("herald_notifications", "gauge", "Task notification outbox rows by status.", notify.map((r) => [{ status: String(r.status) }, num(r.n)]));
  metric("herald_notification_dead_letters", "gauge", "Notifications that stopped after their retry budget or a deleted conversation.", [
    [{}, num(notify.find((r) => r.status === "dead_letter")?.n)],
  ]);
  metric("herald_workers_alive", "gauge", "Workers with a fresh heartbeat.", [[{}, alive]]);
  metric("herald_worker_utilisation", "gauge", "Leased runs and task steps over the run and task capacity of live workers.", [
    [{}, alive ? busy / (alive * concurrency * 2) : 0],
  ]);
  return `${out.join("\n")}\n`;
}
