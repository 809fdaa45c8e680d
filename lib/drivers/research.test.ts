import { describe, expect, it } from "vitest";
import { assembleBody, parsePlan } from "./research";

describe("research report text follows the report's language", () => {
  it("words the partial note, summary, no-sources note and fallback section titles in Chinese for a Chinese report", () => {
    const zh = assembleBody("电动车市场", [{ title: "背景与范围", text: "正文。" }], 3, true, "zh", {
      read: [],
      search: "unavailable",
    });
    expect(zh).toBe(
      "# 电动车市场\n\n_阶段性报告：已完成 1/3 个部分的研究。_\n\n## 摘要\n\n_本报告没有参考任何资料：网络搜索不可用，因此内容未经任何网页核对。_\n\n- 正文。\n\n## 背景与范围\n\n正文。",
    );
    expect(zh).not.toMatch(/[A-Za-z]/);
    expect(assembleBody("EV", [{ title: "Background", text: "Body" }], 2, true)).toContain(
      "_Partial report: 1 of 2 sections researched so far._",
    );
    expect(assembleBody("EV", [{ title: "A", text: "x" }], 1, false, "zh", { read: [], search: "off" })).toBe(
      "# EV\n\n## 摘要\n\n_本报告没有参考任何资料：此服务器关闭了网络搜索，因此内容未经任何网页核对。_\n\n- x\n\n## A\n\nx",
    );
    expect(parsePlan("1. 背景", 3, "zh")).toEqual(["背景", "第 2 节", "第 3 节"]);
    expect(parsePlan("- Background", 2)).toEqual(["Background", "Section 2"]);
  });

  it("leaves out of the summary a sentence that opens several sections (boilerplate, not a finding)", () => {
    const none = "No source was read for this section, so it makes no claims.";
    const body = assembleBody(
      "Printing",
      [
        { title: "A", text: none },
        { title: "B", text: none },
        { title: "C", text: "Gutenberg printed a Bible [1]." },
      ],
      3,
      false,
      "en",
      {
        read: [{ n: 1, url: "https://a.example/", title: "A" }],
      },
    );
    expect(body).toContain("## Summary\n\n- Gutenberg printed a Bible [1].\n\n## A");
    // Read nothing: the note alone says so.
    const all = assembleBody(
      "Printing",
      [
        { title: "A", text: none },
        { title: "B", text: none },
      ],
      2,
      false,
      "en",
      { read: [], search: "off" },
    );
    expect(all.match(/No source was read/g)).toHaveLength(2);
    expect(all).toContain(
      "## Summary\n\n_Written without sources: web search is turned off on this server, so nothing here was checked against a page._\n\n## A",
    );
  });

  it("opens with the summary and ends with the sources: all read in the final body, the cited ones in a partial", () => {
    const read = [
      { n: 1, url: "https://a.example/x", title: "Alpha" },
      { n: 2, url: "https://b.example/y", title: "Beta [draft]" },
      { n: 3, url: "https://c.example/z (1)", title: "Gamma" },
    ];
    const sections = [{ title: "One", text: "Otters hold hands [2]. They float [3]." }];
    const final = assembleBody("Otters", sections, 1, false, "en", { read });
    expect(final).toBe(
      [
        "# Otters",
        "## Summary\n\n- Otters hold hands [2].",
        "## One\n\nOtters hold hands [2]. They float [3].",
        "## Sources\n\n1. [Alpha](https://a.example/x)\n2. [Beta \\[draft\\]](https://b.example/y)\n3. [Gamma](https://c.example/z%20%281%29)",
      ].join("\n\n"),
    );
    const partial = assembleBody("Otters", sections, 2, true, "zh", { read });
    expect(
      partial.endsWith(
        "## 参考来源\n\n2. [Beta \\[draft\\]](https://b.example/y)\n3. [Gamma](https://c.example/z%20%281%29)",
      ),
    ).toBe(true);
    expect(partial).not.toContain("Alpha");
    expect(partial).not.toContain("没有参考任何资料");
  });
});
