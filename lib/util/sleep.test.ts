import { describe, expect, it } from "vitest";
import { sleep } from "./sleep";

describe("sleep", () => {
  it("resolves after the delay and leaves no listener on the signal", async () => {
    const ctrl = new AbortController();
    let added = 0;
    let removed = 0;
    const add = ctrl.signal.addEventListener.bind(ctrl.signal);
    const remove = ctrl.signal.removeEventListener.bind(ctrl.signal);
    ctrl.signal.addEventListener = ((...args: Parameters<typeof add>) => (added++, add(...args))) as typeof add;
    ctrl.signal.removeEventListener = ((...args: Parameters<typeof remove>) => (
      removed++,
      remove(...args)
    )) as typeof remove;
    for (let i = 0; i < 3; i++) await sleep(0, ctrl.signal);
    expect(added).toBe(3);
    expect(removed).toBe(3);
  });

  it("rejects with the abort reason, at once when already aborted", async () => {
    const reason = new Error("stop");
    await expect(sleep(10, AbortSignal.abort(reason))).rejects.toBe(reason);
    const ctrl = new AbortController();
    const pending = sleep(60_000, ctrl.signal);
    ctrl.abort(reason);
    await expect(pending).rejects.toBe(reason);
  });
});
