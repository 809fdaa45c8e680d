import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { randomUUID } from "node:crypto";
import os from "node:os";
import * as metrics from "@/app/api/metrics/route";
import { getDb } from "@/lib/db/client";
import { db as kysely } from "@/lib/db/kysely";
import { sql } from "kysely";
import { postMessage } from "@/lib/chat/post-message";
import { startTask } from "@/lib/tasks/start-task";
import { collectMetrics } from "@/lib/metrics/collect";
import { LOOPS } from "@/lib/metrics/queues";
import {
  createConversationFor,
  signUp,
  startWorkerProcess,
  stopWorkers,
  waitFor,
  type WorkerProc,
} from "@/tests/helpers";

const TOKEN = "fleet-metrics-token-0123456789";

/** Value of the first sample whose line starts with `prefix` and contains every fragment. */
function sample(text: string, name: string, ...fragments: string[]): number | null {
  const line = text
    .split("\n")
    .find((l) => (l.startsWith(`${name} `) || l.startsWith(`${name}{`)) && fragments.every((f) => l.includes(f)));
  return line === undefined ? null : Number(line.split(" ").pop());
}

let worker: WorkerProc | null = null;
let saved: string | undefined;
beforeAll(() => {
  saved = process.env.HERALD_METRICS_TOKEN;
  process.env.HERALD_METRICS_TOKEN = TOKEN;
});
afterAll(async () => {
  if (worker) await stopWorkers(worker);
  if (saved === undefined) delete process.env.HERALD_METRICS_TOKEN;
  else process.env.HERALD_METRICS_TOKEN = saved;
});

describe("/api/metrics after real work", () => {
  it("serves queue depth and expired leases from Postgres and each live worker's counters and histograms", async () => {
    const u = await signUp("Fleet metrics");
    const conv = await createConversationFor(u);
    const db = getDb();

    // A turn whose worker died mid-run: running, lease expired. No worker runs yet. It
    // waits behind an older turn whose holder still has a live lease (one active run per
    // conversation), so its recovery can only happen once the test releases that turn.
    const holding = await postMessage(u.id, conv, { content: "first", clientMessageId: randomUUID() });
    const crashed = await postMessage(u.id, conv, { content: "hello", clientMessageId: randomUUID() });
    await kysely()
      .updateTable("run")
      .set({
        status: "running",
        attempts: 1,
        leaseOwner: "live-worker",
        leaseToken: "live-token",
        leaseExpiresAt: sql<Date>`now() + interval '10 minutes'`,
        startedAt: sql<Date>`now()`,
      })
      .where("id", "=", holding.run.id)
      .execute();
    await kysely()
      .updateTable("run")
      .set({
        status: "running",
        attempts: 1,
        leaseOwner: "dead-worker",
        leaseToken: "dead-token",
        leaseExpiresAt: sql<Date>`now() - interval '5 seconds'`,
        startedAt: sql<Date>`now() - interval '40 seconds'`,
      })
      .where("id", "=", crashed.run.id)
      .execute();
    // A task due since a minute ago: the oldest due age reads at least that.
    const due = await startTask({
      ownerId: u.id,
      conversationId: await createConversationFor(u),
      title: "metrics due",
      prompt: "metrics",
      clientRequestId: randomUUID(),
      options: { simulate: { steps: 1, stepMs: 0 } },
    });
    await kysely()
      .updateTable("task")
      .set({ nextRunAt: sql<Date>`now() - interval '60 seconds'` })
      .where("id", "=", due.task.id)
      .execute();

    const before = await collectMetrics();
    expect(sample(before, "herald_leases_expired", 'loop="runs"')).toBeGreaterThanOrEqual(1);
    expect(sample(before, "herald_queue_depth", 'loop="runs"')).toBeGreaterThanOrEqual(1);
    expect(sample(before, "herald_queue_depth", 'loop="tasks"')).toBeGreaterThanOrEqual(1);
    expect(sample(before, "herald_queue_oldest_due_seconds", 'loop="tasks"')).toBeGreaterThanOrEqual(59);
    for (const loop of LOOPS) expect(sample(before, "herald_queue_depth", `loop="${loop}"`), loop).not.toBeNull();

    worker = startWorkerProcess();
    const pid = worker.child.pid!;
    await waitFor(
      async () => (await db.task.findUniqueOrThrow({ where: { id: due.task.id } })).status === "succeeded",
      60_000,
      "task",
    );
    // Only now may the crashed turn be recovered. A heartbeat snapshot is taken on its own
    // clock, so "the latest beat" may predate the task's claims (other accounts' older work
    // left in the shared database is claimed first, and the task can start and finish
    // between two beats); a snapshot that counts the recovery was taken after it, hence after
    // every claim of the task.
    await kysely()
      .updateTable("run")
      .set({
        status: "succeeded",
        finishedAt: sql<Date>`now()`,
        updatedAt: sql<Date>`now()`,
        leaseOwner: null,
        leaseToken: null,
        leaseExpiresAt: null,
      })
      .where("id", "=", holding.run.id)
      .execute();
    await waitFor(
      async () => (await db.run.findUniqueOrThrow({ where: { id: crashed.run.id } })).status === "succeeded",
      60_000,
      "recovered run",
    );
    // The counters travel with the next heartbeat (HERALD_HEARTBEAT_MS=1000 in test workers).
    // Our worker's row by its pid: a worker an earlier file SIGKILLed still looks live for
    // HERALD_HEARTBEAT_STALE_MS and may carry recoveries of its own.
    type Snapshot = { name: string; values: { value: number; labels: Record<string, string> }[] }[];
    const beat = await waitFor(
      async () => {
        const row = await db.workerHeartbeat.findFirst({ where: { pid, host: os.hostname(), stoppedAt: null } });
        const snapshot = (row?.metrics ?? []) as Snapshot;
        const recovered = snapshot.some(
          (m) =>
            m.name === "herald_lease_recoveries_total" &&
            m.values.some((v) => v.labels.loop === "runs" && v.value >= 1),
        );
        return recovered ? row : null;
      },
      30_000,
      "a heartbeat carrying the recovery",
    );

    // The worker's own recoveries, as its heartbeat row says at a moment. The shared database
    // may hold other files' runs whose leases ran out (a worker killed mid-turn), and this
    // worker recovers those too, so the count is bracketed rather than exact.
    const recoveriesNow = async () => {
      const row = await db.workerHeartbeat.findUniqueOrThrow({ where: { id: beat.id } });
      const metric = ((row.metrics ?? []) as Snapshot).find((m) => m.name === "herald_lease_recoveries_total");
      return metric?.values.find((v) => v.labels.loop === "runs")?.value ?? 0;
    };
    const low = await recoveriesNow();
    // The first scrape in this file: nothing cached yet.
    const res = await metrics.GET(
      new Request("http://localhost/api/metrics", { headers: { authorization: `Bearer ${TOKEN}` } }),
    );
    expect(res.status).toBe(200);
    const text = await res.text();
    const high = await recoveriesNow();
    const proc = `process="${beat.id}"`;
    const served = sample(text, "herald_lease_recoveries_total", 'loop="runs"', proc)!;
    expect(low).toBeGreaterThanOrEqual(1);
    expect(served).toBeGreaterThanOrEqual(low);
    expect(served).toBeLessThanOrEqual(high);
    expect(sample(text, "herald_loop_claimed_total", 'loop="runs"', proc)).toBeGreaterThanOrEqual(1);
    expect(sample(text, "herald_loop_claimed_total", 'loop="tasks"', proc)).toBeGreaterThanOrEqual(2);
    expect(sample(text, "herald_queue_wait_seconds_count", 'loop="tasks"', proc)).toBeGreaterThanOrEqual(2);
    // The step due a minute ago waited at least that long: it is past the 30 s bucket.
    expect(sample(text, "herald_queue_wait_seconds_bucket", 'loop="tasks"', 'le="30"', proc)!).toBeLessThan(
      sample(text, "herald_queue_wait_seconds_count", 'loop="tasks"', proc)!,
    );
    expect(sample(text, "herald_start_delay_seconds_count", 'kind="task"', proc)).toBeGreaterThanOrEqual(1);
    expect(sample(text, "herald_loop_busy_seconds_total", 'loop="tasks"', proc)).toBeGreaterThan(0);
    expect(sample(text, "herald_loop_slots", 'loop="runs"', proc)).toBeGreaterThanOrEqual(1);
    expect(text).toContain("# TYPE herald_queue_wait_seconds histogram");
    expect(text).toContain("# TYPE herald_emails_sent_total counter");
    // The recovered run is no longer waiting behind an expired lease.
    expect(sample(await collectMetrics(), "herald_leases_expired", 'loop="runs"')).toBeLessThan(
      sample(before, "herald_leases_expired", 'loop="runs"')!,
    );
  });
});
