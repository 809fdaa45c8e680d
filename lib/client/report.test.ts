import { describe, expect, it } from "vitest";
import { etaSeconds, lineDiff, reportFileName, reportHeadings } from "./report";

describe("report helpers", () => {
  it("lists headings 1–3 with their source lines, skipping fenced code and inline markup", () => {
    const md = [
      "# Title",
      "",
      "## **Bold** part",
      "text",
      "```",
      "## not a heading",
      "```",
      "### [Link](https://x.y) here ##",
      "#### too deep",
      "## 背景与范围",
    ].join("\n");
    expect(reportHeadings(md)).toEqual([
      { level: 1, text: "Title", line: 1 },
      { level: 2, text: "Bold part", line: 3 },
      { level: 3, text: "Link here", line: 8 },
      { level: 2, text: "背景与范围", line: 10 },
    ]);
  });

  it("diffs lines: kept, removed and added, in order", () => {
    expect(lineDiff("a\nb\nc", "a\nc\nd")).toEqual([
      { type: "same", text: "a" },
      { type: "del", text: "b" },
      { type: "same", text: "c" },
      { type: "add", text: "d" },
    ]);
    expect(lineDiff("", "x")).toEqual([
      { type: "del", text: "" },
      { type: "add", text: "x" },
    ]);
  });

  it("makes file names from any script", () => {
    expect(reportFileName("EV market: 2026 / Europe", 2, "md")).toBe("EV-market-2026-Europe-v2.md");
    expect(reportFileName("电动车市场", undefined, "md")).toBe("电动车市场.md");
    expect(reportFileName("???", 1, "md")).toBe("report-v1.md");
  });

  it("estimates time left from the pace of finished steps", () => {
    const startedAt = "2026-01-01T00:00:00.000Z";
    // Steps 2..3 took 20 s after the first: 10 s each; 2 steps left = 20 s, 5 s of which have passed.
    const steps = { done: 3, total: 5, at: "2026-01-01T00:00:20.000Z" };
    expect(etaSeconds(steps, startedAt, Date.parse("2026-01-01T00:00:25.000Z"))).toBe(15);
    expect(etaSeconds(steps, startedAt, Date.parse("2026-01-01T00:01:00.000Z"))).toBe(0);
    expect(etaSeconds({ ...steps, done: 1 }, startedAt, Date.parse(steps.at))).toBeNull();
    expect(etaSeconds(steps, null, 0)).toBeNull();
    expect(etaSeconds({ ...steps, done: 5 }, startedAt, 0)).toBeNull();
  });
});
