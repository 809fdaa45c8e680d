// The figures that need the machine to themselves: no other worker process may run
// (they would claim the no-op tasks), so bench/run.ts calls this after stopping its own.
//   - Herald's lease loop vs graphile-worker and pg-boss (bench/queues.ts)
//   - research tasks per minute with 1, 2 and 4 workers; idle cost per worker (bench/scale.ts)
//   - GET /api/tasks with 10,000 tasks in one account (bench/list-tasks.ts)
import { listTasksBench, type ListTasksFigure } from "./list-tasks";
import { queueBench, type QueueBench } from "./queues";
import { idleCost, researchScaling, type IdleCost, type ResearchRow } from "./scale";
import { withFreshDatabase } from "./fresh";

export interface WorkerFigures {
  listTasks: ListTasksFigure;
  queues: QueueBench;
  idle: IdleCost;
  research: { rows: ResearchRow[]; ratios: Record<string, string> };
}

/** `serverUrl`: the bench database, whose server also holds a fresh database per figure. */
export async function workerFigures(serverUrl: string): Promise<WorkerFigures> {
  // On the bench's own database (better-auth's session is bound to it); nothing claims tasks now.
  const listTasks = await listTasksBench();
  const queues = await withFreshDatabase(serverUrl, (url) => queueBench(url));
  const idle = await idleCost(serverUrl);
  const research = await researchScaling(serverUrl);
  return { listTasks, queues, idle, research };
}

const ms = (x: number) => (Number.isFinite(x) ? `${x.toFixed(1)} ms` : "—");

export function formatWorkerFigures(f: WorkerFigures): string {
  const out: string[] = [];
  out.push("\nno-op job, claim → complete (same PostgreSQL, concurrency 4, one consumer process each)");
  out.push(
    `${"system".padEnd(26)} ${"jobs/s".padStart(8)} ${"done".padStart(10)} ${"add→start p50".padStart(14)} ${"p99".padStart(10)} ${"stmts/job".padStart(10)} ${"add call p50".padStart(13)}`,
  );
  for (const r of f.queues.rows) {
    out.push(
      `${r.system.padEnd(26)} ${r.jobsPerSecond.toFixed(1).padStart(8)} ${`${r.completed}/${r.jobs}`.padStart(10)} ${ms(r.addToStartMs.p50).padStart(14)} ${ms(r.addToStartMs.p99).padStart(10)} ${r.queriesPerJob.toFixed(1).padStart(10)} ${ms(r.addCallMs.p50).padStart(13)}`,
    );
  }
  for (const [k, v] of Object.entries(f.queues.ratios)) out.push(`  ${k}: ${v}`);
  out.push("\nresearch tasks (offline model, no pacing)");
  for (const r of f.research.rows) {
    out.push(
      `  ${r.workers} worker${r.workers > 1 ? "s" : " "}: ${r.tasksPerMinute} tasks/min (${r.completed}/${r.tasks} in ${r.seconds} s), ${r.taskEquivalentsPerMinute} task-equivalents of steps/min, ${r.queriesPerTask} statements per finished task`,
    );
  }
  for (const [k, v] of Object.entries(f.research.ratios)) out.push(`  ${k}: ${v}`);
  out.push(
    `\nidle: ${f.idle.queriesPerMinutePerWorker.join(" / ")} statements per minute per worker (pg clients), ${f.idle.xactPerMinutePerWorker} commits/min/worker (pg_stat_database), poll ${f.idle.pollMs} ms, heartbeat ${f.idle.heartbeatMs} ms`,
  );
  const l = f.listTasks;
  out.push(
    `GET /api/tasks, ${l.tasks} tasks (${l.active} active) in one account: p50 ${ms(l.allMs.p50)}, p95 ${ms(l.allMs.p95)} (${l.returned} returned); scope=active p95 ${ms(l.activeMs.p95)}, scope=recent p95 ${ms(l.recentMs.p95)}`,
  );
  return out.join("\n");
}
