import { expect, it } from "vitest";
import { runChaos, SHORT_PROFILE } from "./harness";
import { formatReport } from "./report";

// The short, fixed-seed profile of `npm run chaos` (docs/development.md#chaos).
it(
  "chaos, short profile: workers SIGKILLed, PostgreSQL restarted twice, the web process killed — nothing lost, nothing twice",
  { timeout: 420_000 },
  async () => {
    const report = await runChaos({ ...SHORT_PROFILE, log: (l) => console.log(`[chaos] ${l}`) });
    console.log(formatReport(report));
    expect(report.events.workerKills).toBeGreaterThan(0);
    expect(report.events).toMatchObject({ pgFastRestarts: 1, pgKills: 1, webKills: 1 });
    // Work was held at some kill, so the recovery audit had something to judge.
    expect(report.recovery.leases + report.recovery.slotsFull + report.recovery.nearOutage).toBeGreaterThan(0);
    expect(report.violations).toEqual([]);
    // Every lease a killed worker held is taken up; how fast is printed, not asserted here (docs/development.md#chaos).
    expect(report.recovery.violations.filter((v) => v.includes("not taken up"))).toEqual([]);
  },
);
