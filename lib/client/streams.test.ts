import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";

// The previews live in module state: a fresh module per test.
let streams: typeof import("./streams");

beforeEach(async () => {
  vi.useFakeTimers();
  vi.resetModules();
  streams = await import("./streams");
});

afterEach(() => {
  vi.useRealTimers();
});

const delta = (runId: string, offset: number, text: string) => ({ runId, conversationId: "c1", offset, delta: text });

describe("stream previews", () => {
  it("appends in-order deltas, skips duplicates and overlaps, restarts after a gap", () => {
    streams.applyDelta(delta("r1", 0, "Hel"));
    streams.applyDelta(delta("r1", 3, "lo"));
    streams.applyDelta(delta("r1", 0, "Hel")); // replayed
    streams.applyDelta(delta("r1", 4, "o, w")); // overlaps one character
    expect(streams.getStreams().r1).toMatchObject({ start: 0, text: "Hello, w" });

    streams.applyDelta(delta("r1", 20, "later"));
    expect(streams.getStreams().r1).toMatchObject({ start: 20, text: "later" });
  });

  it("a duplicate delta leaves the snapshot identical (no re-render)", () => {
    streams.applyDelta(delta("r1", 0, "abc"));
    const before = streams.getStreams();
    streams.applyDelta(delta("r1", 1, "b"));
    expect(streams.getStreams()).toBe(before);
  });

  it("finishStream removes the preview after a moment and ignores late deltas", () => {
    streams.applyDelta(delta("r1", 0, "abc"));
    streams.finishStream("r1");
    expect(streams.getStreams().r1).toBeDefined();
    vi.runAllTimers();
    expect(streams.getStreams().r1).toBeUndefined();
    streams.applyDelta(delta("r1", 3, "def"));
    expect(streams.getStreams().r1).toBeUndefined();
  });

  it("a failed run drops its preview at once; a succeeded one only if its message never comes", () => {
    streams.applyDelta(delta("failed", 0, "x"));
    streams.applyDelta(delta("ok", 0, "y"));
    streams.endStream("failed", false);
    streams.endStream("ok", true);
    vi.advanceTimersByTime(0);
    expect(Object.keys(streams.getStreams())).toEqual(["ok"]);
    vi.advanceTimersByTime(10_000);
    expect(streams.getStreams()).toEqual({});
  });

  it("a run that failed before any delta never shows one", () => {
    streams.endStream("r2", false);
    streams.applyDelta(delta("r2", 0, "late"));
    expect(streams.getStreams()).toEqual({});
  });
});
