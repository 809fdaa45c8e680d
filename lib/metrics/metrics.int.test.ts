import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { randomUUID } from "node:crypto";
import * as metrics from "@/app/api/metrics/route";
import { getDb } from "@/lib/db/client";
import { postMessage } from "@/lib/chat/post-message";
import { collectMetrics, METRICS_CACHE_MS } from "@/lib/metrics/collect";
import { db } from "@/lib/db/kysely";
import { literals } from "@/lib/db/sql-list";
import { TERMINAL_STATUSES } from "@/lib/contract/task";
import { sql } from "kysely";
import { createConversationFor, signUp } from "@/tests/helpers";

const TOKEN = "metrics-test-token-0123456789";
// Every name and label set that outside dashboards scrape; add to this list, never shrink it.
const NAMES = [
  "herald_runs",
  "herald_run_queue_wait_seconds",
  "herald_tasks",
  "herald_task_start_delay_seconds",
  "herald_notifications",
  "herald_notification_dead_letters",
  "herald_workers_alive",
  "herald_worker_utilisation",
];

const scrape = (authorization?: string) =>
  metrics.GET(new Request("http://localhost/api/metrics", { headers: authorization ? { authorization } : {} }));

const value = (text: string, line: RegExp) =>
  Number(
    text
      .split("\n")
      .find((l) => line.test(l))
      ?.split(" ")
      .pop(),
  );

let saved: string | undefined;
beforeEach(() => {
  saved = process.env.HERALD_METRICS_TOKEN;
  process.env.HERALD_METRICS_TOKEN = TOKEN;
});
afterEach(() => {
  if (saved === undefined) delete process.env.HERALD_METRICS_TOKEN;
  else process.env.HERALD_METRICS_TOKEN = saved;
  vi.restoreAllMocks();
  vi.useRealTimers();
});

describe("/api/metrics access", () => {
  it("is off (404, saying how to turn it on) when no token is configured", async () => {
    delete process.env.HERALD_METRICS_TOKEN;
    const res = await scrape(`Bearer ${TOKEN}`);
    expect(res.status).toBe(404);
    const body = await res.json();
    expect(body.error.code).toBe("not_found");
    expect(body.error.message).toContain("HERALD_METRICS_TOKEN");
  });

  it("refuses a request without the token or with a wrong one (401)", async () => {
    const spy = vi.spyOn(db().getExecutor(), "executeQuery");
    for (const auth of [undefined, "Bearer wrong", `Bearer ${TOKEN}x`, `Basic ${TOKEN}`]) {
      const res = await scrape(auth);
      expect(res.status, String(auth)).toBe(401);
      expect(res.headers.get("www-authenticate")).toMatch(/^Bearer/);
      expect((await res.json()).error.code).toBe("unauthorized");
    }
    expect(spy).not.toHaveBeenCalled();
  });

  it("answers the right token with Prometheus text carrying every existing metric", async () => {
    const res = await scrape(`Bearer ${TOKEN}`);
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toContain("text/plain");
    const text = await res.text();
    for (const name of NAMES) {
      expect(text).toContain(`# TYPE ${name} gauge`);
      expect(text).toContain(`# HELP ${name} `);
    }
    for (const q of ["0.5", "0.99"]) {
      expect(text).toMatch(new RegExp(`^herald_run_queue_wait_seconds\\{quantile="${q}"\\} `, "m"));
      expect(text).toMatch(new RegExp(`^herald_task_start_delay_seconds\\{quantile="${q}"\\} `, "m"));
    }
  });
});

describe("metrics collection", () => {
  it("reports queue depth, tasks, notifications and delays from one statement, without ids", async () => {
    const u = await signUp("Metrics");
    const conv = await createConversationFor(u);
    const { run } = await postMessage(u.id, conv, { content: "hi", clientMessageId: randomUUID() });
    const task = await getDb().task.create({
      data: {
        ownerId: u.id,
        conversationId: conv,
        title: "t",
        prompt: "p",
        status: "succeeded",
        notificationStatus: "dead_letter",
      },
    });
    await db()
      .updateTable("task")
      .set({ startedAt: sql<Date>`"createdAt" + interval '2 seconds'` })
      .where("id", "=", task.id)
      .execute();

    const spy = vi.spyOn(db().getExecutor(), "executeQuery");
    const text = await collectMetrics();
    expect(spy).toHaveBeenCalledTimes(1);

    expect(value(text, /^herald_runs\{kind="chat",status="queued"\} /)).toBeGreaterThanOrEqual(1);
    expect(value(text, /^herald_tasks\{status="succeeded"\} /)).toBeGreaterThanOrEqual(1);
    expect(value(text, /^herald_notifications\{status="dead_letter"\} /)).toBeGreaterThanOrEqual(1);
    expect(value(text, /^herald_notification_dead_letters /)).toBeGreaterThanOrEqual(1);
    expect(value(text, /^herald_task_start_delay_seconds\{quantile="0.99"\} /)).toBeGreaterThan(0);
    expect(value(text, /^herald_workers_alive /)).toBeGreaterThanOrEqual(0);
    for (const line of text.trim().split("\n")) {
      // Label values: words, or a worker's process id (host:pid:random) and a histogram's le="+Inf".
      expect(line).toMatch(
        /^(# (HELP|TYPE) herald_\w+ .+|herald_\w+(\{[a-z]+="[\w.:+-]+"(,[a-z]+="[\w.:+-]+")*\})? -?[\d.e+-]+)$/,
      );
    }
    for (const id of [u.id, conv, run.id, task.id]) expect(text).not.toContain(id);
  });

  it("counts a task stopped at its deadline as finished: in herald_tasks, not in the cancel queue", async () => {
    const u = await signUp("Metrics deadline");
    const conv = await createConversationFor(u);
    // Fenced and scheduled as the deadline stop left it; the cancel claim never takes a terminal row, so neither may its gauge.
    const stopped = await getDb().task.create({
      data: {
        ownerId: u.id,
        conversationId: conv,
        title: "t",
        prompt: "p",
        status: "deadline_exceeded",
        deliveryMode: "at",
      },
    });
    const minuteAgo = sql<Date>`now() - interval '1 minute'`;
    await db()
      .updateTable("task")
      .set({ cancelRequestedAt: minuteAgo, nextCancelAt: minuteAgo, completedAt: sql<Date>`now()` })
      .where("id", "=", stopped.id)
      .execute();
    const { due } = await db()
      .selectFrom("task")
      .select(sql<number>`count(*)::int`.as("due"))
      .where("cancelRequestedAt", "is not", null)
      .where("status", "not in", literals(TERMINAL_STATUSES))
      .where("nextCancelAt", "<=", sql<Date>`now()`)
      .where((eb) => eb.or([eb("cancelLeaseExpiresAt", "is", null), eb("cancelLeaseExpiresAt", "<", sql<Date>`now()`)]))
      .executeTakeFirstOrThrow();

    const text = await collectMetrics();
    expect(value(text, /^herald_queue_depth\{loop="cancel"\} /)).toBe(due);
    expect(value(text, /^herald_tasks\{status="deadline_exceeded"\} /)).toBeGreaterThanOrEqual(1);
  });

  it("runs one query per cache window, shared by concurrent scrapes", async () => {
    vi.useFakeTimers({ toFake: ["Date"] });
    // Past any window an earlier test may have left open.
    vi.setSystemTime(Date.now() + 60 * 60_000);
    const spy = vi.spyOn(db().getExecutor(), "executeQuery");

    const responses = await Promise.all(Array.from({ length: 20 }, () => scrape(`Bearer ${TOKEN}`)));
    expect(responses.map((r) => r.status)).toEqual(Array(20).fill(200));
    const texts = new Set(await Promise.all(responses.map((r) => r.text())));
    expect(texts.size).toBe(1);
    expect(spy).toHaveBeenCalledTimes(1);

    vi.setSystemTime(Date.now() + METRICS_CACHE_MS - 1);
    expect((await scrape(`Bearer ${TOKEN}`)).status).toBe(200);
    expect(spy).toHaveBeenCalledTimes(1);

    vi.setSystemTime(Date.now() + 1);
    await Promise.all(Array.from({ length: 20 }, () => scrape(`Bearer ${TOKEN}`)));
    expect(spy).toHaveBeenCalledTimes(2);
  });

  it("answers 503 without error text when the query fails, and does not keep the failure", async () => {
    vi.useFakeTimers({ toFake: ["Date"] });
    vi.setSystemTime(Date.now() + 2 * 60 * 60_000);
    const error = vi.spyOn(console, "error").mockImplementation(() => {});
    const spy = vi
      .spyOn(db().getExecutor(), "executeQuery")
      .mockRejectedValueOnce(new Error("connect ECONNREFUSED 127.0.0.1:5432 (PostgreSQL 18.1)"));
    const res = await scrape(`Bearer ${TOKEN}`);
    expect(res.status).toBe(503);
    const body = await res.text();
    expect(body).not.toMatch(/ECONNREFUSED|127\.0|5432|postgres/i);
    expect(error).toHaveBeenCalled();
    expect((await scrape(`Bearer ${TOKEN}`)).status).toBe(200);
    expect(spy).toHaveBeenCalledTimes(2);
  });
});
