import { renderToStaticMarkup } from "react-dom/server";
import { describe, expect, it } from "vitest";
import type { ReactNode } from "react";
import { I18nProvider } from "@/lib/client/i18n";
import type { Lang } from "@/lib/i18n/dictionaries";
import { taskFixture } from "@/lib/client/task-fixture";
import { splitSources } from "@/lib/client/report-sources";
import { ReportBody } from "./report-body";
import { TaskSources } from "./task-sources";

const html = (node: ReactNode, lang: Lang = "en") =>
  renderToStaticMarkup(<I18nProvider initialLang={lang}>{node}</I18nProvider>);

const report = [
  "# Otters",
  "## Summary\n\n- They hold hands [2].",
  "## Habits\n\nThey hold hands [2]. They float [3, 2]. A link [2](https://x.example) stays. Unknown [9] stays as text.",
  "## Sources\n\n2. [Hands \\[study\\]](https://a.example/hands)\n3. [Floating](https://b.example/float)",
].join("\n\n");

describe("a report's sources as people see them", () => {
  it("lists the sources by their own numbers, opening in a new tab without a referrer, and links each citation to its entry", () => {
    const out = html(<ReportBody text={report} anchorPrefix="r1" headingPrefix="h" />);
    expect(out).toContain('<li id="r1-source-2" value="2"');
    expect(out).toContain(
      '<a href="https://a.example/hands" target="_blank" rel="noopener noreferrer">Hands [study]</a>',
    );
    expect(out).toContain('<li id="r1-source-3" value="3"');
    expect(out).toContain('<a href="#r1-source-2">[2]</a>');
    expect(out).toContain('<a href="#r1-source-3">[3]</a><a href="#r1-source-2">[2]</a>');
    expect(out).toContain("Unknown [9] stays");
    expect(out).toContain('href="https://x.example"');
    // The heading keeps the id the table of contents points at (its source line).
    expect(out).toContain(`<h2 id="h-h${report.split("\n").indexOf("## Sources") + 1}"`);
    expect(out.match(/Sources/g)).toHaveLength(1);
  });

  it("a body whose last section is not a clean list renders as it was written", () => {
    expect(splitSources("# A\n\n## Sources\n\n1. [x](javascript:alert(1))").heading).toBeNull();
    expect(splitSources("# A\n\n## Sources\n\nsome prose").heading).toBeNull();
    expect(splitSources("# A\n\n## Sources\n\n1. [x](https://x.example)\n\n## After").heading).toBeNull();
    const out = html(<ReportBody text={"# A\n\nText [1]."} anchorPrefix="r" />);
    expect(out).not.toContain("report-sources");
    expect(out).toContain("Text [1].");
  });

  it("the sheet and details say how many sources were read, or that the report had none and why, in both languages", () => {
    const read = taskFixture("t", "running", 1, {
      spent: { modelRequests: 3, inputTokens: 0, outputTokens: 0, costUsd: null, searches: 2, pagesRead: 4 },
    });
    expect(html(<TaskSources task={read} />)).toContain("4 sources read · 2 web searches");
    expect(html(<TaskSources task={read} compact />, "zh")).toContain("已读 4 个来源");
    const none = taskFixture("t", "succeeded", 1, { sourcesNote: "search_unavailable" });
    expect(html(<TaskSources task={none} compact />)).toContain("Written without sources: web search was unavailable");
    expect(html(<TaskSources task={none} />, "zh")).toContain("未参考任何资料：网络搜索不可用");
    expect(html(<TaskSources task={{ ...read, driver: "mcp" }} />)).toBe("");
  });
});
