import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { randomUUID } from "node:crypto";
import { getDb } from "@/lib/db/client";
import { isTerminalStatus } from "@/lib/contract/task";
import { collectFeed, post, startWeb, type Web } from "./web-client";
import { signUp, startWorkerProcess, stopWorkers, waitFor, type WorkerProc } from "./helpers";

/**
 * Scale-out on one PostgreSQL (docs/operations.md#scaling-out): two web
 * processes and three workers, nothing shared but the database. One account's
 * feeds on different web processes see the same gap-free log; a cancel sent to
 * one web process stops work a worker holds; due notices fire once.
 */

const webs: Web[] = [];
const workers: WorkerProc[] = [];
beforeAll(async () => {
  webs.push(await startWeb(), await startWeb());
  for (let i = 0; i < 3; i++) workers.push(startWorkerProcess({ HERALD_TASK_LEASE_MS: "3000" }));
}, 60_000);
afterAll(async () => {
  await stopWorkers(...workers);
  for (const w of webs) w.proc.kill("SIGTERM");
});

describe("two web processes and three workers on one PostgreSQL", () => {
  it(
    "feeds on both web processes see one gap-free log; a cancel via the other web process stops a running task; due notices fire once",
    { timeout: 150_000 },
    async () => {
      const [a, b] = webs;
      const u = await signUp("ScaleOut");
      const feedA = collectFeed(a, u);
      const feedB = collectFeed(b, u);
      const conv = await post(a, u, "/api/conversations", {});
      expect(conv.status).toBe(201);
      const conversationId = (conv.json as { id: string }).id;

      // Tasks started through both web processes; two are timed ("tell me at" in 2 s), one is long and gets cancelled.
      const start = (web: Web, title: string, simulate: object, delivery?: object) =>
        post(web, u, "/api/tasks", {
          conversationId,
          title,
          prompt: title,
          clientRequestId: randomUUID(),
          options: { simulate },
          ...(delivery ? { delivery } : {}),
        });
      const started = await Promise.all([
        start(a, "quick one", { steps: 1, stepMs: 0 }),
        start(b, "quick two", { steps: 2, stepMs: 0 }),
        start(a, "timed one", { steps: 2, stepMs: 0 }, { mode: "at", dueInSeconds: 2 }),
        start(b, "timed two", { steps: 6, stepMs: 1000 }, { mode: "at", dueInSeconds: 2, reportIfUnfinished: true }),
        start(a, "long one", { steps: 8, stepMs: 1500 }),
      ]);
      for (const s of started) expect(s.status).toBe(202);
      const ids = started.map((s) => (s.json.task as { id: string }).id);
      const longId = ids[4];

      // The long task is running on some worker; the cancel goes to the other web process.
      await waitFor(
        async () => (await getDb().taskStep.count({ where: { taskId: longId } })) >= 2,
        60_000,
        "long task working",
      );
      const cancel = await post(b, u, `/api/tasks/${longId}/cancel`, {});
      expect(cancel.status).toBe(200);

      const tasks = await waitFor(
        async () => {
          const rows = await getDb().task.findMany({ where: { id: { in: ids } } });
          return rows.every(
            (t) =>
              isTerminalStatus(t.status) &&
              t.notificationStatus !== "pending" &&
              (t.dueAt === null || t.dueEvaluatedAt !== null),
          )
            ? rows
            : null;
        },
        60_000,
        "every task settled",
      );
      const byTitle = Object.fromEntries(tasks.map((t) => [t.title, t]));
      expect(byTitle["long one"].status).toBe("cancelled");
      expect(await getDb().taskStep.count({ where: { taskId: longId } })).toBeLessThan(9);
      for (const title of ["quick one", "quick two", "timed one", "timed two"])
        expect(byTitle[title].status).toBe("succeeded");

      // Due notices: exactly one per timed task, though three workers ran the due loop.
      const dueNotices = await getDb().notice.findMany({
        where: { taskId: { in: [byTitle["timed one"].id, byTitle["timed two"].id] }, key: "due" },
      });
      expect(dueNotices.map((n) => n.taskId).sort()).toEqual([byTitle["timed one"].id, byTitle["timed two"].id].sort());

      // Both feeds: the same events, ids 1..N without a gap, whichever process wrote them.
      const last = Number((await getDb().user.findUniqueOrThrow({ where: { id: u.id } })).eventSeq);
      await waitFor(
        async () => feedA.events.at(-1)?.id === last && feedB.events.at(-1)?.id === last,
        20_000,
        `both feeds caught up to ${last} (now ${feedA.events.at(-1)?.id} and ${feedB.events.at(-1)?.id}, ${feedA.events.length} and ${feedB.events.length} events)`,
      );
      await feedA.stop();
      await feedB.stop();
      const idsA = feedA.events.map((e) => e.id);
      expect(idsA).toEqual(Array.from({ length: last }, (_, i) => i + 1));
      expect(feedB.events.map((e) => e.id)).toEqual(idsA);
      expect(feedB.events.map((e) => e.type)).toEqual(feedA.events.map((e) => e.type));
    },
  );
});
