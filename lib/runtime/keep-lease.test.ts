import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { keepLease } from "./keep-lease";

beforeEach(() => vi.useFakeTimers());
afterEach(() => vi.useRealTimers());

describe("keepLease", () => {
  it("a renewal that cannot reach the database is no verdict until the lease has run out by our clock", async () => {
    const onLost = vi.fn();
    const renew = vi.fn(async () => {
      throw new Error("Connection terminated unexpectedly");
    });
    const stop = keepLease(3000, renew, onLost);
    await vi.advanceTimersByTimeAsync(3000);
    // Three failed renewals within the lease: the step keeps its work (the commit's guard decides).
    expect(renew).toHaveBeenCalledTimes(3);
    expect(onLost).not.toHaveBeenCalled();
    await vi.advanceTimersByTimeAsync(1000);
    expect(onLost).toHaveBeenCalledTimes(1);
    await vi.advanceTimersByTimeAsync(5000);
    expect(onLost).toHaveBeenCalledTimes(1);
    stop();
  });

  it("a renewal confirmed after an outage counts the lease again from there", async () => {
    const onLost = vi.fn();
    let down = true;
    const renew = vi.fn(async () => {
      if (down) throw new Error("ECONNREFUSED");
      return true;
    });
    const stop = keepLease(3000, renew, onLost);
    await vi.advanceTimersByTimeAsync(2000);
    down = false;
    await vi.advanceTimersByTimeAsync(1000);
    down = true;
    await vi.advanceTimersByTimeAsync(3000);
    expect(onLost).not.toHaveBeenCalled();
    await vi.advanceTimersByTimeAsync(1000);
    expect(onLost).toHaveBeenCalledTimes(1);
    stop();
  });

  it("the database saying the lease is gone stops the work at once", async () => {
    const onLost = vi.fn();
    const stop = keepLease(3000, async () => false, onLost);
    await vi.advanceTimersByTimeAsync(1000);
    expect(onLost).toHaveBeenCalledTimes(1);
    stop();
  });

  it("one renewal at a time: a slow one is not joined by more", async () => {
    let release: (ok: boolean) => void = () => {};
    const renew = vi.fn(() => new Promise<boolean>((r) => (release = r)));
    const stop = keepLease(3000, renew, () => {});
    await vi.advanceTimersByTimeAsync(5000);
    expect(renew).toHaveBeenCalledTimes(1);
    release(true);
    await vi.advanceTimersByTimeAsync(1000);
    expect(renew).toHaveBeenCalledTimes(2);
    stop();
  });
});
