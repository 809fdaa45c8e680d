import { describe, expect, it } from "vitest";
import { markdownForFile } from "./report";

describe("markdownForFile (copy and download)", () => {
  it("puts a blank line before and after every heading", () => {
    const body = "# Heat pumps\nIntro line.\n## Summary\nShort.\n## Findings\n### Costs\n- a\n- b\n## Sources\n1. x";
    expect(markdownForFile(body)).toBe(
      "# Heat pumps\n\nIntro line.\n\n## Summary\n\nShort.\n\n## Findings\n\n### Costs\n\n- a\n- b\n\n## Sources\n\n1. x\n",
    );
  });

  it("leaves fenced code, existing blank lines and non-headings alone", () => {
    const body = "Text\n\n## A\n\n```md\n## not a heading\n#hashtag\n```\n## B\r\nEnd\n\n\n";
    expect(markdownForFile(body)).toBe("Text\n\n## A\n\n```md\n## not a heading\n#hashtag\n```\n\n## B\n\nEnd\n");
  });
});
