import { describe, expect, it, vi } from "vitest";
import { Loop } from "./loop";

describe("Loop", () => {
  it("stops promptly when the stop arrives while it is claiming (no full poll sleep)", { timeout: 5_000 }, async () => {
    const ac = new AbortController();
    const loop = new Loop(
      { name: "t", concurrency: 1, pollMs: 60_000, claim: async () => (ac.abort(), []), work: async () => {} },
      ac.signal,
    );
    await loop.start();
    expect(ac.signal.aborted).toBe(true);
  });

  it("isolates a failing row: its siblings are worked and the loop goes on", { timeout: 5_000 }, async () => {
    const ac = new AbortController();
    const done: number[] = [];
    let batches = 0;
    const loop = new Loop<number>(
      {
        name: "t",
        concurrency: 3,
        pollMs: 60_000,
        log: () => {},
        claim: async () => (batches++ === 0 ? [1, 2, 3] : batches === 2 ? [4] : []),
        work: async (n) => {
          if (n === 2) throw new Error("bad row");
          done.push(n);
          if (n === 4) ac.abort();
        },
      },
      ac.signal,
    );
    await loop.start();
    expect(done.sort()).toEqual([1, 3, 4]);
  });

  it("a wake-up ends the sleep early", { timeout: 5_000 }, async () => {
    const ac = new AbortController();
    let claims = 0;
    const loop = new Loop(
      {
        name: "t",
        concurrency: 1,
        pollMs: 60_000,
        claim: async () => {
          claims += 1;
          if (claims === 2) ac.abort();
          return [];
        },
        work: async () => {},
      },
      ac.signal,
    );
    const running = loop.start();
    while (claims < 1) await new Promise((r) => setTimeout(r, 5));
    loop.wake();
    await running;
    expect(claims).toBe(2);
  });

  it("due work it could not claim (an account at its fair share) does not make it spin", async () => {
    vi.useFakeTimers();
    try {
      const ac = new AbortController();
      let claims = 0;
      let asked = 0;
      const loop = new Loop(
        {
          name: "t",
          concurrency: 2,
          pollMs: 1_000,
          claim: async () => {
            claims += 1;
            return [];
          },
          nextWakeMs: async () => {
            asked += 1;
            return 0;
          },
          work: async () => {},
        },
        ac.signal,
      );
      const running = loop.start();
      await vi.waitFor(() => expect(asked).toBe(1));
      // One immediate retry (it may have become due just after the claim), then backing off:
      // a spin would claim thousands of times in these 3 s.
      await vi.advanceTimersByTimeAsync(3_000);
      expect(claims).toBeGreaterThanOrEqual(2);
      expect(claims).toBeLessThanOrEqual(10);
      ac.abort();
      await running;
    } finally {
      vi.useRealTimers();
    }
  });
});
