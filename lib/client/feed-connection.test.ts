import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { feedConnection, feedLost, feedOpened, feedStopped, GRACE_MS, RESTORED_MS } from "./feed-connection";

describe("feed connection as people see it", () => {
  beforeEach(() => {
    vi.useFakeTimers();
    feedStopped();
  });
  afterEach(() => vi.useRealTimers());

  it("a first open is live without any banner state", () => {
    expect(feedConnection()).toBe("connecting");
    expect(feedOpened()).toBe(false);
    expect(feedConnection()).toBe("live");
  });

  it("a drop is said after the grace, then 'restored' for a while once back (with a refetch), then live", () => {
    feedOpened();
    feedLost();
    expect(feedConnection()).toBe("live");
    vi.advanceTimersByTime(GRACE_MS);
    expect(feedConnection()).toBe("reconnecting");
    feedLost(); // the browser's retries keep failing: nothing changes
    expect(feedConnection()).toBe("reconnecting");
    expect(feedOpened()).toBe(true);
    expect(feedConnection()).toBe("restored");
    vi.advanceTimersByTime(RESTORED_MS);
    expect(feedConnection()).toBe("live");
  });

  it("a blip shorter than the grace shows nothing but still asks for a refetch", () => {
    feedOpened();
    feedLost();
    vi.advanceTimersByTime(GRACE_MS - 1);
    expect(feedOpened()).toBe(true);
    expect(feedConnection()).toBe("live");
    vi.advanceTimersByTime(GRACE_MS);
    expect(feedConnection()).toBe("live");
  });

  it("a feed closed on purpose (sign-out) cancels a pending warning", () => {
    feedOpened();
    feedLost();
    feedStopped();
    vi.advanceTimersByTime(GRACE_MS * 2);
    expect(feedConnection()).toBe("connecting");
  });
});
