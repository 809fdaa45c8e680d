// GET /api/tasks through the real route handler (session lookup, zod, the query, the
// public projection, JSON) for an account holding 10,000 tasks, inserted directly.
import path from "node:path";
import { sql } from "kysely";
import { runStandalone } from "./fresh";
import { summary, type Summary } from "./stats";

export interface ListTasksFigure {
  tasks: number;
  active: number;
  requests: number;
  /** The sheet's default request (scope=all: every active task, then the newest 50 finished). */
  allMs: Summary;
  activeMs: Summary;
  recentMs: Summary;
  returned: number;
}

export async function listTasksBench(
  opts: { tasks?: number; active?: number; requests?: number } = {},
): Promise<ListTasksFigure> {
  const total = opts.tasks ?? 10_000;
  const active = opts.active ?? 200;
  const requests = opts.requests ?? 200;
  const { db } = await import("../lib/db/kysely");
  const { signUp, createConversationFor, call } = await import("../tests/helpers");
  const { GET } = await import("../app/api/tasks/route");
  const user = await signUp("ListBench");
  const convs = await Promise.all(Array.from({ length: 20 }, () => createConversationFor(user)));
  // Finished tasks over the past weeks, plus `active` running ones not due for a day (no worker runs now).
  await sql`
    INSERT INTO "task" ("ownerId", "conversationId", title, prompt, status, "createdAt", "updatedAt", "startedAt", "completedAt", "nextRunAt")
    SELECT ${user.id}, (${convs}::text[])[1 + g % 20], 'bench task ' || g, 'a research request of ordinary length',
           CASE WHEN g <= ${active}::int THEN 'running' WHEN g % 10 = 0 THEN 'failed' WHEN g % 17 = 0 THEN 'cancelled' ELSE 'succeeded' END,
           now() - g * interval '2 minutes', now() - g * interval '1 minute', now() - g * interval '2 minutes',
           CASE WHEN g <= ${active}::int THEN NULL ELSE now() - g * interval '1 minute' END,
           CASE WHEN g <= ${active}::int THEN now() + interval '1 day' ELSE NULL END
    FROM generate_series(1, ${total}::int) g`.execute(db());
  await sql`ANALYZE "task"`.execute(db());
  const time = async (path: string) => {
    const ms: number[] = [];
    let returned = 0;
    for (let i = 0; i < requests; i++) {
      const t0 = performance.now();
      const res = await call(GET, { user, path });
      ms.push(performance.now() - t0);
      if (res.status !== 200) throw new Error(`GET ${path}: ${res.status}`);
      returned = res.json.tasks.length;
    }
    return { ms: summary(ms.slice(5)), returned };
  };
  const all = await time("/api/tasks");
  const act = await time("/api/tasks?scope=active");
  const recent = await time("/api/tasks?scope=recent");
  return {
    tasks: total,
    active,
    requests,
    allMs: all.ms,
    activeMs: act.ms,
    recentMs: recent.ms,
    returned: all.returned,
  };
}

// `npx tsx bench/list-tasks.ts [tasks] [active] [requests]` on its own throwaway database.
if (process.argv[1] && path.resolve(process.argv[1]) === path.resolve(import.meta.filename)) {
  const [tasks = 10_000, active = 200, requests = 200] = process.argv.slice(2, 5).map(Number);
  runStandalone({ HERALD_AUTH_RATE_LIMIT: "off" }, async () => ({
    listTasks: await listTasksBench({ tasks, active, requests }),
  }));
}
