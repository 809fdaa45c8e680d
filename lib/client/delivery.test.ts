import { describe, expect, it } from "vitest";
import {
  durationParts,
  MAX_DUE_MINUTES,
  minutesText,
  parseDueMinutes,
  secondsUntilTimeOfDay,
  timeOfDayIn,
} from "./delivery";

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

describe("secondsUntilTimeOfDay", () => {
  const now = new Date(2026, 10, 30, 14, 0, 0, 0);

  it("counts to the time later today, seconds included", () => {
    expect(secondsUntilTimeOfDay("14:30", now)).toBe(1800);
    expect(secondsUntilTimeOfDay("14:00:45", now)).toBe(45);
  });

  it("takes a time that has passed (or is now) as tomorrow", () => {
    expect(secondsUntilTimeOfDay("13:59", now)).toBe(24 * 3600 - 60);
    expect(secondsUntilTimeOfDay("14:00", now)).toBe(24 * 3600);
  });

  it("reads the time on the account's clock, not this device's", () => {
    const utc = new Date("2026-12-01T13:52:25Z"); // 21:52:25 in Shanghai, 08:52:25 in New York
    expect(secondsUntilTimeOfDay("21:54:25", utc, "Asia/Shanghai")).toBe(120);
    expect(secondsUntilTimeOfDay("08:53", utc, "America/New_York")).toBe(35);
    expect(secondsUntilTimeOfDay("21:52", utc, "Asia/Shanghai")).toBe(24 * 3600 - 25);
    expect(timeOfDayIn(600, utc, "Asia/Shanghai")).toBe("22:02");
  });

  it("refuses what is not a time of day", () => {
    for (const bad of ["", "24:00", "12:60", "7:5", "noon", "12:00:61"])
      expect(secondsUntilTimeOfDay(bad, now), bad).toBeNull();
  });
});

describe("minutesText and durationParts", () => {
  it("keeps the minutes field in step with a chosen time", () => {
    expect(minutesText(1800)).toBe("30");
    expect(minutesText(754)).toBe("12.57");
    expect(parseDueMinutes(minutesText(45))).toBe(45);
  });

  it("words short spans with seconds and long ones without", () => {
    expect(durationParts(9.6)).toEqual({ unit: "s", h: 0, m: 0, s: 10 });
    expect(durationParts(754)).toEqual({ unit: "ms", h: 0, m: 12, s: 34 });
    expect(durationParts(3 * 3600 + 125)).toEqual({ unit: "hm", h: 3, m: 2, s: 5 });
  });
});
