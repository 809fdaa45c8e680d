import { describe, expect, it } from "vitest";
import { normalizeOutcome } from "./execute-task";

describe("normalizeOutcome: a driver's step count", () => {
  it("keeps a whole count with 0 ≤ done ≤ total ≤ 10,000", () => {
    expect(normalizeOutcome({ count: { done: 2, total: 5 } }).count).toEqual({ done: 2, total: 5 });
    expect(normalizeOutcome({ count: { done: 0, total: 1 } }).count).toEqual({ done: 0, total: 1 });
    expect(normalizeOutcome({}).count).toBeUndefined();
  });

  it("drops a count the progress bar could not show", () => {
    for (const count of [
      { done: 6, total: 5 },
      { done: -1, total: 5 },
      { done: 1, total: 0 },
      { done: 1.5, total: 3 },
      { done: 1, total: 10_001 },
      { done: Number.NaN, total: 3 },
    ]) {
      expect(normalizeOutcome({ count }).count).toBeUndefined();
    }
  });
});
