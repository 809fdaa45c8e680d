import { describe, expect, it } from "vitest";
import { beyondFreeSlots, nearOutage, percentile } from "./recovery";

describe("chaos recovery audit", () => {
  it("leaves a kill out of the verdict when an outage overlaps [kill − lease, kill + lease + 1 s]", () => {
    const kill = 10_000;
    expect(nearOutage(kill, 2000, [])).toBe(false);
    expect(nearOutage(kill, 2000, [{ from: 7000, to: 7900 }])).toBe(false); // ended more than a lease before
    expect(nearOutage(kill, 2000, [{ from: 7000, to: 8100 }])).toBe(true); // the dead worker could not renew through it
    expect(nearOutage(kill, 2000, [{ from: 12_900, to: 13_500 }])).toBe(true); // began before the limit ran out
    expect(nearOutage(kill, 2000, [{ from: 13_000, to: 13_500 }])).toBe(false); // began once the limit had run out
  });

  it("judges only as many of a kill's task leases as the survivors had free slots when they ran out, the fastest first", () => {
    const leases = [{ recoveredMs: 4900 }, { recoveredMs: 2100 }, {}, { recoveredMs: 3800 }];
    expect(beyondFreeSlots(leases, 1)).toEqual([{ recoveredMs: 3800 }, { recoveredMs: 4900 }, {}]);
    expect(beyondFreeSlots(leases, 0)).toHaveLength(4);
    expect(beyondFreeSlots(leases, -2)).toHaveLength(4);
    // Enough free slots: every lease is judged, a missing take-up included.
    expect(beyondFreeSlots(leases, 4)).toEqual([]);
  });

  it("takes nearest-rank percentiles", () => {
    expect(percentile([], 0.5)).toBeNull();
    expect(percentile([100], 0.5)).toBe(100);
    expect(percentile([100, 200, 300, 400], 0.5)).toBe(200);
    expect(percentile([100, 200, 300, 400], 1)).toBe(400);
  });
});
