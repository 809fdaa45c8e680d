import { describe, expect, it } from "vitest";
import { MAX_DUE_MINUTES, parseDueMinutes } from "./delivery";

describe("parseDueMinutes", () => {
  it("turns minutes (decimals too) into seconds", () => {
    expect(parseDueMinutes("10")).toBe(600);
    expect(parseDueMinutes("0.25")).toBe(15);
    expect(parseDueMinutes("0.1")).toBe(6);
    expect(parseDueMinutes(".5")).toBe(30);
    expect(parseDueMinutes("2.")).toBe(120);
    expect(parseDueMinutes(" 1,5 ")).toBe(90);
    expect(parseDueMinutes(String(MAX_DUE_MINUTES))).toBe(MAX_DUE_MINUTES * 60);
  });

  it("rejects zero, negatives, junk and more than 7 days", () => {
    for (const bad of ["", "0", "0.0", "-1", "abc", "1e3", "1.2.3", String(MAX_DUE_MINUTES + 1), "Infinity"]) {
      expect(parseDueMinutes(bad), bad).toBeNull();
    }
  });
});
