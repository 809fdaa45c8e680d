import { AggregatorRegistry } from "prom-client";
import type { ProcessSnapshot } from "./process";

/**
 * Prometheus text for the per-process figures of every live worker, from the
 * snapshots their heartbeats stored (lib/metrics/process.ts). Each series keeps
 * its `process` label, so nothing is summed across workers here; a worker that
 * stopped beating drops out (its counters restart under a new label if it comes
 * back, which rate() reads as a reset).
 */
export async function renderFleet(snapshots: ProcessSnapshot[] | null): Promise<string> {
  const valid = (snapshots ?? []).filter((s): s is ProcessSnapshot => Array.isArray(s));
  if (valid.length === 0) return "";
  const text = await AggregatorRegistry.aggregate(
    valid as Parameters<typeof AggregatorRegistry.aggregate>[0],
  ).metrics();
  // prom-client separates metrics with blank lines; the rest of the page has none.
  return `${text
    .split("\n")
    .filter((l) => l !== "")
    .join("\n")}\n`;
}
