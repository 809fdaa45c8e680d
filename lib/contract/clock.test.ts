import { describe, expect, it } from "vitest";
import { canonicalTimeZone, formatMoment, relativeTime, usableTimeZone } from "./clock";

const now = new Date("2026-12-01T13:52:25Z");
const soon = new Date("2026-12-01T13:54:25Z");

describe("formatMoment", () => {
  it("reads in the account's zone, in both languages, with the distance", () => {
    expect(formatMoment(soon, { lang: "en", timeZone: "Asia/Shanghai", now, relative: true })).toBe(
      "9:54:25 PM, in 2 min",
    );
    expect(formatMoment(soon, { lang: "zh", timeZone: "Asia/Shanghai", now, relative: true })).toBe(
      "21:54:25（2 分钟后）",
    );
    expect(formatMoment(soon, { lang: "en", timeZone: "America/New_York", now, relative: true })).toBe(
      "8:54:25 AM, in 2 min",
    );
    expect(formatMoment(soon, { lang: "zh", timeZone: "America/New_York", now })).toBe("08:54:25");
  });

  it("shows the day only when it is not today in that zone, seconds only when near", () => {
    const later = new Date("2026-12-02T17:00:00Z"); // Thu 01:00 in Shanghai, Wed 12:00 in New York
    expect(formatMoment(later, { lang: "en", timeZone: "Asia/Shanghai", now })).toBe("Thu, Dec 3, 1:00 AM");
    expect(formatMoment(later, { lang: "zh", timeZone: "Asia/Shanghai", now })).toBe("12月3日周四 01:00");
    expect(formatMoment(later, { lang: "en", timeZone: "America/New_York", now })).toBe("Wed, Dec 2, 12:00 PM");
    // 21:52 in Shanghai is still Dec 1, so 23:00 the same evening has no date.
    expect(formatMoment(new Date("2026-12-01T15:00:00Z"), { lang: "en", timeZone: "Asia/Shanghai", now })).toBe(
      "11:00 PM",
    );
    expect(formatMoment(soon, { lang: "en", timeZone: "UTC", now, date: "date" })).toBe("Tue, Dec 1, 1:54:25 PM");
  });

  it("relative part only while ahead when asked for the future", () => {
    const past = new Date("2026-12-01T13:40:00Z");
    expect(formatMoment(past, { lang: "en", timeZone: "UTC", now, relative: "future" })).toBe("1:40:00 PM");
    expect(formatMoment(past, { lang: "en", timeZone: "UTC", now, relative: true })).toBe("1:40:00 PM, 12 min ago");
    expect(formatMoment(past, { lang: "zh", timeZone: "UTC", now, relative: true })).toBe("13:40:00（12 分钟前）");
  });

  it("an unknown zone reads as UTC; invalid input is empty", () => {
    expect(formatMoment(soon, { lang: "en", timeZone: "Mars/Olympus", now })).toBe("1:54:25 PM");
    expect(formatMoment("not a date", { lang: "en", timeZone: "UTC", now })).toBe("");
    expect(formatMoment(null, { lang: "en", timeZone: "UTC", now })).toBe("");
  });
});

describe("relativeTime", () => {
  it("coarse units in both languages", () => {
    expect(relativeTime(45_000, "en")).toBe("in 45 s");
    expect(relativeTime(65 * 60_000, "en")).toBe("in 1 h 5 min");
    expect(relativeTime(65 * 60_000, "zh")).toBe("1 小时 5 分钟后");
    expect(relativeTime(3 * 86_400_000, "en")).toBe("in 3 days");
    expect(relativeTime(-120_000, "zh")).toBe("2 分钟前");
  });
});

describe("time zones", () => {
  it("keeps IANA names, refuses others", () => {
    expect(canonicalTimeZone("Asia/Shanghai")).toBe("Asia/Shanghai");
    expect(canonicalTimeZone("Nowhere/Land")).toBeNull();
    expect(canonicalTimeZone(42)).toBeNull();
    expect(usableTimeZone(null)).toBe("UTC");
  });
});
