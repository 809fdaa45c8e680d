import { describe, expect, it } from "vitest";
import { singleFlight } from "./cache";

function harness(ttlMs = 5_000) {
  let now = 1_000_000;
  let calls = 0;
  let fail = false;
  const pending: (() => void)[] = [];
  const get = singleFlight(
    () =>
      new Promise<number>((resolve, reject) => {
        const n = ++calls;
        pending.push(() => (fail ? reject(new Error("boom")) : resolve(n)));
      }),
    ttlMs,
    () => now,
  );
  const settle = () => pending.splice(0).forEach((f) => f());
  return {
    get,
    settle,
    calls: () => calls,
    advance: (ms: number) => (now += ms),
    failNext: (v: boolean) => (fail = v),
  };
}

describe("singleFlight", () => {
  it("shares one in-flight call between concurrent callers", async () => {
    const h = harness();
    const all = Promise.all(Array.from({ length: 20 }, () => h.get()));
    await Promise.resolve();
    h.settle();
    expect(await all).toEqual(Array(20).fill(1));
    expect(h.calls()).toBe(1);
  });

  it("reuses an answer for the window after it settles, then asks again", async () => {
    const h = harness(5_000);
    const first = h.get();
    await Promise.resolve();
    h.advance(60_000); // a slow producer: the window starts when the answer exists
    h.settle();
    expect(await first).toBe(1);
    h.advance(4_999);
    expect(await h.get()).toBe(1);
    expect(h.calls()).toBe(1);
    h.advance(1);
    const second = h.get();
    await Promise.resolve();
    h.settle();
    expect(await second).toBe(2);
    expect(h.calls()).toBe(2);
  });

  it("does not keep a failure: the next caller tries again", async () => {
    const h = harness();
    h.failNext(true);
    const failed = Promise.all([h.get(), h.get()]);
    await Promise.resolve();
    h.settle();
    await expect(failed).rejects.toThrow("boom");
    expect(h.calls()).toBe(1);
    h.failNext(false);
    const retried = h.get();
    await Promise.resolve();
    h.settle();
    expect(await retried).toBe(2);
  });
});
