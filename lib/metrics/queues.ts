import type { QueueRow } from "./queues-sql";

/** Every loop the per-loop gauges name (their rows: lib/metrics/queues-sql.ts). */
export const LOOPS = ["runs", "tasks", "cancel", "notify", "email", "due"] as const;

type Sample = [Record<string, string>, number];
type MetricFn = (name: string, type: string, help: string, samples: Sample[]) => void;

/** Writes the per-loop gauges through collect.ts's `metric` writer; every loop appears, waiting or not. */
export function renderQueues(rows: QueueRow[] | null, metric: MetricFn): void {
  const by = new Map((rows ?? []).map((r) => [r.loop, r]));
  const each = (pick: (r: QueueRow | undefined) => number): Sample[] =>
    LOOPS.map((loop) => [{ loop }, pick(by.get(loop))]);
  metric(
    "herald_queue_depth",
    "gauge",
    "Rows due now and not leased (claimable), per loop.",
    each((r) => Number(r?.depth ?? 0)),
  );
  metric(
    "herald_queue_oldest_due_seconds",
    "gauge",
    "Age of the oldest row due and not leased, per loop (0 when none waits).",
    each((r) => Math.max(0, Number(r?.oldest ?? 0))),
  );
  metric(
    "herald_leases_expired",
    "gauge",
    "Leases still held past their expiry (holder crashed or stalled; the next claim recovers the row), per loop.",
    each((r) => Number(r?.expired ?? 0)),
  );
}
