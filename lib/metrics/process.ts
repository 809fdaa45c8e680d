import { Counter, Gauge, Histogram, Registry, type MetricObjectWithValues, type MetricValue } from "prom-client";

/**
 * This process's own counters and histograms (prom-client), labelled with
 * `process` (the worker id). Figures that live in Postgres are not here: they
 * come from collect.ts's one query. A worker writes `processSnapshot()` into its
 * heartbeat row every beat, and /api/metrics (any web process) serves the
 * snapshots of every live worker, so the scrape sees the whole fleet without
 * reaching each worker over the network.
 *
 * To add a figure: declare it below with `registers: [registry]` and a
 * `herald_` name; it travels with the next beat, nothing else to wire.
 */
const registry = new Registry();

export function setProcessLabel(process: string): void {
  registry.setDefaultLabels({ process });
}

/** Seconds buckets from 5 ms to 10 min: a wake-up by NOTIFY, a poll interval, a backlog. */
const WAIT_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300, 600];

export const queueWait = new Histogram({
  name: "herald_queue_wait_seconds",
  help: "From a row becoming due (a run queued, a task step's nextRunAt) to a worker claiming it, per loop.",
  labelNames: ["loop"],
  buckets: WAIT_BUCKETS,
  registers: [registry],
});

export const startDelay = new Histogram({
  name: "herald_start_delay_seconds",
  help: "From a task or run being created to its first claim (task: the driver's submit).",
  labelNames: ["kind"],
  buckets: WAIT_BUCKETS,
  registers: [registry],
});

export const claimed = new Counter({
  name: "herald_loop_claimed_total",
  help: "Rows claimed, per loop.",
  labelNames: ["loop"],
  registers: [registry],
});

export const workFailures = new Counter({
  name: "herald_loop_work_failures_total",
  help: "Claimed rows whose work threw (logged; the lease expires and the row is claimed again), per loop.",
  labelNames: ["loop"],
  registers: [registry],
});

export const claimFailures = new Counter({
  name: "herald_loop_claim_failures_total",
  help: "Claims that failed (database unreachable, statement error), per loop.",
  labelNames: ["loop"],
  registers: [registry],
});

export const busySeconds = new Counter({
  name: "herald_loop_busy_seconds_total",
  help: "Slot-seconds spent working claimed rows, per loop; rate() over herald_loop_slots is the loop's utilisation.",
  labelNames: ["loop"],
  registers: [registry],
});

export const busySlots = new Gauge({
  name: "herald_loop_busy",
  help: "Slots working a claimed row when the worker last reported, per loop.",
  labelNames: ["loop"],
  registers: [registry],
});

export const slots = new Gauge({
  name: "herald_loop_slots",
  help: "Slots (concurrency) of the loop in this worker.",
  labelNames: ["loop"],
  registers: [registry],
});

export const leaseRecoveries = new Counter({
  name: "herald_lease_recoveries_total",
  help: "Claims of a row whose previous lease expired without a release (its holder crashed or stalled), per loop.",
  labelNames: ["loop"],
  registers: [registry],
});

export const emailsSent = new Counter({
  name: "herald_emails_sent_total",
  help: "Notice emails the SMTP server accepted.",
  registers: [registry],
});

export const emailsFailed = new Counter({
  name: "herald_emails_failed_total",
  help: "Notice email sends that failed: retry (transient, tried again) or dead_letter (given up).",
  labelNames: ["outcome"],
  registers: [registry],
});

export type ProcessSnapshot = MetricObjectWithValues<MetricValue<string>>[];

/** What the heartbeat stores: prom-client's JSON form, default labels applied. */
export async function processSnapshot(): Promise<ProcessSnapshot> {
  return (await registry.getMetricsAsJSON()) as ProcessSnapshot;
}

/** For tests: start from zero. */
export function resetProcessMetrics(): void {
  registry.resetMetrics();
}
