import { describe, expect, it } from "vitest";
import { assembleBody, parsePlan } from "./research";

describe("research report text follows the report's language", () => {
  it("words the partial note and fallback section titles in Chinese for a Chinese report", () => {
    const zh = assembleBody("电动车市场", [{ title: "背景与范围", text: "正文" }], 3, true, "zh");
    expect(zh).toBe("# 电动车市场\n\n_阶段性报告：已完成 1/3 个部分的研究。_\n\n## 背景与范围\n\n正文");
    expect(zh).not.toMatch(/[A-Za-z]/);
    expect(assembleBody("EV", [{ title: "Background", text: "Body" }], 2, true)).toContain("_Partial report: 1 of 2 sections researched so far._");
    expect(assembleBody("EV", [{ title: "A", text: "x" }], 1, false, "zh")).toBe("# EV\n\n## A\n\nx");
    expect(parsePlan("1. 背景", 3, "zh")).toEqual(["背景", "第 2 节", "第 3 节"]);
    expect(parsePlan("- Background", 2)).toEqual(["Background", "Section 2"]);
  });
});
