import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";

let toasts: typeof import("./toasts");

beforeEach(async () => {
  vi.useFakeTimers();
  vi.resetModules();
  toasts = await import("./toasts");
});

afterEach(() => {
  vi.useRealTimers();
});

describe("toasts", () => {
  it("keeps the newest three and dismisses each after 8 s", () => {
    for (let i = 0; i < 4; i++) toasts.pushToast({ tone: "error", key: "cancelFailed", vars: { title: `t${i}` } });
    expect(toasts.getToasts().map((t) => t.vars?.title)).toEqual(["t1", "t2", "t3"]);
    vi.advanceTimersByTime(7_999);
    expect(toasts.getToasts()).toHaveLength(3);
    vi.advanceTimersByTime(1);
    expect(toasts.getToasts()).toEqual([]);
  });

  it("dismissToast removes one; an unknown id changes nothing", () => {
    const a = toasts.pushToast({ tone: "info", key: "signOutAllFailed" });
    const b = toasts.pushToast({ tone: "error", key: "signOutAllFailed" });
    const before = toasts.getToasts();
    toasts.dismissToast(999);
    expect(toasts.getToasts()).toBe(before);
    toasts.dismissToast(a);
    expect(toasts.getToasts().map((t) => t.id)).toEqual([b]);
  });
});
