// The chaos run's result and the table `npm run chaos` prints (docs/development.md#chaos).
import type { RecoveryStats } from "@/tests/chaos/recovery";
import type { BootStats } from "@/tests/chaos/fleet";

export interface ChaosProfile {
  seed: number;
  accounts: number;
  tasks: number;
  workers: number;
  /** Pause between worker kills, ms (uniform in [min, max]). */
  killEveryMs: [number, number];
  /** Workers whose loops still run after a kill: a kill waits until one more than this run (tests/chaos/fleet.ts). */
  keepRunning: number;
  /** Simulated research: steps and pacing per task (uniform ranges). */
  steps: [number, number];
  stepMs: [number, number];
  /** How long everything may take to settle after the last submission. */
  settleMs: number;
  log?: (line: string) => void;
  /** A directory: samples and worker logs for finding why a run does not converge (tests/chaos/trace.ts). */
  traceDir?: string;
}

export interface ChaosReport {
  profile: ChaosProfile;
  tasks: Record<string, number>;
  events: { workerKills: number; pgFastRestarts: number; pgKills: number; webKills: number };
  extraModelRequests: number;
  reclaims: number;
  /** Every lease of the run (task execution, cancel, runs, notification). */
  leaseMs: number;
  /** Its own violations (slow or missing take-ups) are apart from `violations`: see docs/development.md#chaos. */
  recovery: RecoveryStats;
  boots: BootStats;
  chatTurns: number;
  violations: string[];
  seconds: number;
}

export function formatReport(r: ChaosReport): string {
  const rows: [string, string][] = [
    ["seed", String(r.profile.seed)],
    ["accounts / tasks / workers", `${r.profile.accounts} / ${r.profile.tasks} / ${r.profile.workers}`],
    [
      "tasks by status",
      Object.entries(r.tasks)
        .map(([k, v]) => `${k} ${v}`)
        .join(", "),
    ],
    ["chat turns", String(r.chatTurns)],
    [
      "worker SIGKILLs (every 1–3 s, ≥ N left running)",
      `${r.events.workerKills} (N = ${r.profile.keepRunning}; one per ${r.events.workerKills ? (r.seconds / r.events.workerKills).toFixed(1) : "–"} s)`,
    ],
    [
      "worker boots: spawn → loops running (p50, max)",
      `${r.boots.boots}: ${r.boots.p50Ms ?? "–"} ms, ${r.boots.maxMs ?? "–"} ms (${r.boots.selfExits} exited on their own)`,
    ],
    ["PostgreSQL fast restarts / SIGKILLs", `${r.events.pgFastRestarts} / ${r.events.pgKills}`],
    ["web process SIGKILLs", String(r.events.webKills)],
    ["steps re-claimed after a crash", String(r.reclaims)],
    [
      `worker kills' leases taken up in (p50, max; limit ${r.leaseMs / 1000 + 1} s)`,
      `${r.recovery.leases} leases: ${r.recovery.p50Ms ?? "–"} ms, ${r.recovery.maxMs ?? "–"} ms (${r.recovery.kills} kills; ${r.recovery.killsReadLate} read after an outage)`,
    ],
    [
      "  beyond the survivors' free slots at expiry (not judged)",
      `${r.recovery.slotsFull} leases, slowest ${r.recovery.slotsFullMaxMs ?? "–"} ms`,
    ],
    [
      "  near a PostgreSQL outage (not judged)",
      `${r.recovery.nearOutage} leases, slowest ${r.recovery.nearOutageMaxMs ?? "–"} ms (outages ${r.recovery.outagesMs.join(" / ")} ms)`,
    ],
    ["extra model requests", String(r.extraModelRequests)],
    ["violations / slow recoveries", `${r.violations.length} / ${r.recovery.violations.length}`],
    ["took", `${r.seconds} s`],
  ];
  const w = Math.max(...rows.map(([k]) => k.length));
  return [
    ...rows.map(([k, v]) => `${k.padEnd(w)}  ${v}`),
    ...[...r.violations, ...r.recovery.violations].map((v) => `  ✗ ${v}`),
  ].join("\n");
}
