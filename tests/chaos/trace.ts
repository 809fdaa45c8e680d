// `CHAOS_TRACE=<dir>`: what the chaos run's workers and database were doing, for finding why a
// profile does not converge (docs/development.md#chaos). Every few seconds one line of task and
// run counts and a pg_stat_activity sample; every worker's log (the killed ones' included) goes
// to <dir>/worker-<pid>.log, and the errors they logged are counted by message at the end.

import fs from "node:fs";
import path from "node:path";
import { sql, type RawBuilder } from "kysely";
import { ACTIVE_STATUSES } from "@/lib/contract/task";
import type { Executor } from "@/lib/db/kysely";
import { literals } from "@/lib/db/sql-list";
import type { WorkerProc } from "@/tests/helpers";

type Count = { k: string; n: number };

export class ChaosTrace {
  private stopped = false;
  private sampler: Promise<void>;
  private errors = new Map<string, number>();
  private kills = 0;

  constructor(
    private dir: string,
    private db: () => Executor,
    private log: (line: string) => void,
    everyMs = 5000,
  ) {
    fs.mkdirSync(dir, { recursive: true });
    this.sampler = this.sample(everyMs);
  }

  private async sample(everyMs: number): Promise<void> {
    const started = Date.now();
    while (!this.stopped) {
      await new Promise((r) => setTimeout(r, everyMs));
      try {
        const rows = async <T>(q: RawBuilder<T>) => (await q.execute(this.db())).rows;
        const tasks = await rows(sql<Count>`
          SELECT status || CASE WHEN "leaseExpiresAt" > now() THEN '*' ELSE '' END AS k, count(*)::int AS n FROM "task" GROUP BY 1 ORDER BY 1`);
        // Re-claims as the audit counts them: claims beyond one per committed step plus the submit.
        const [t] = await rows(sql<{ reclaims: number; steps: number; due: number }>`
          SELECT (SELECT coalesce(sum(greatest(0, t.attempts - 1 - (SELECT count(*) FROM "task_step" s WHERE s."taskId" = t.id))), 0)::int
              FROM "task" t) AS reclaims,
            (SELECT count(*)::int FROM "task_step") AS steps,
            (SELECT count(*)::int FROM "task" WHERE status IN ${literals(ACTIVE_STATUSES)}
               AND "cancelRequestedAt" IS NULL AND "nextRunAt" <= now() AND ("leaseExpiresAt" IS NULL OR "leaseExpiresAt" < now())) AS due`);
        const runs = await rows(
          sql<Count>`SELECT kind || ':' || status AS k, count(*)::int AS n FROM "run" GROUP BY 1 ORDER BY 1`,
        );
        const notify = await rows(
          sql<Count>`SELECT "notificationStatus" AS k, count(*)::int AS n FROM "task" GROUP BY 1 ORDER BY 1`,
        );
        const act = await rows(sql<Count>`
          SELECT coalesce(state, '?') || '/' || coalesce(wait_event, '-') || ' ' || regexp_replace(left(query, 50), '\\s+', ' ', 'g') AS k, count(*)::int AS n
          FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid() GROUP BY 1 ORDER BY 2 DESC LIMIT 8`);
        const fmt = (cs: Count[]) => cs.map((c) => `${c.k} ${c.n}`).join(", ");
        this.log(
          `trace +${Math.round((Date.now() - started) / 1000)}s tasks[${fmt(tasks)}] due ${t.due} steps ${t.steps} re-claims ${t.reclaims} kills ${this.kills} ` +
            `runs[${fmt(runs)}] notify[${fmt(notify)}]\n    pg: ${fmt(act)}`,
        );
      } catch (err) {
        this.log(`trace: sample failed (${(err as Error).message.split("\n")[0]})`);
      }
    }
  }

  /** Keeps a worker's log (call when it exited); counts the errors it logged by message. */
  worker(w: WorkerProc, killed = true): void {
    if (killed) this.kills++;
    const out = w.output();
    fs.writeFileSync(path.join(this.dir, `worker-${w.child.pid}.log`), out);
    for (const line of out.split("\n")) {
      if (!line.startsWith("{")) continue;
      try {
        const j = JSON.parse(line) as { level?: number; msg?: string; loop?: string; err?: { message?: string } };
        // Warnings and errors, and the info line of a step dropped for a lost lease (lib/runtime/execute-task.ts).
        if ((j.level ?? 0) < 40 && !j.msg?.includes("lease lost")) continue;
        const key = `${j.loop ?? "-"}: ${j.msg} ${(j.err?.message ?? "").split("\n")[0].slice(0, 120)}`;
        this.errors.set(key, (this.errors.get(key) ?? 0) + 1);
      } catch {
        // not a log line
      }
    }
  }

  async finish(): Promise<void> {
    this.stopped = true;
    await this.sampler;
    const top = [...this.errors].sort((a, b) => b[1] - a[1]).slice(0, 20);
    this.log(`trace: worker errors by message (${top.length ? "top 20" : "none"})`);
    for (const [k, n] of top) this.log(`  ${n}× ${k}`);
  }
}
