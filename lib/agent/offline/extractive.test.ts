import { describe, expect, it } from "vitest";
import { frameUntrusted } from "@/lib/text/frame";
import { researchText } from "./replies";

const step = (section: string, pages: [number, string][], lang = "en", topic = "otters of Lake Zorb") =>
  [
    `[herald:research-step] section=1/2 lang=${lang}`,
    `Write the section "${section}" of a research report.`,
    `Topic:\n${frameUntrusted(topic, "research request")}`,
    ...pages.map(([n, text]) => `[${n}] Page ${n} — site${n}.test\n${frameUntrusted(text, `source ${n}`)}`),
  ].join("\n");

describe("the offline model writes a section from the pages it was given", () => {
  const zorb =
    "Welcome to our site. The otters of Lake Zorb were first counted in 1911 by Ada Quill. Lake Zorb otters eat mostly crayfish[12]. Cookies help us.";
  const other =
    "Weather today is mild. Zorb otters sleep holding hands in groups of seven. Subscribe to the newsletter.";

  it("quotes the most relevant sentences, each cited to its page, in page order, deterministically", () => {
    const text = researchText(
      step("Key facts", [
        [3, zorb],
        [4, other],
      ]),
    )!;
    expect(text).toBe(
      "The otters of Lake Zorb were first counted in 1911 by Ada Quill [3]. Lake Zorb otters eat mostly crayfish [3]. Zorb otters sleep holding hands in groups of seven [4].",
    );
    expect(
      researchText(
        step("Key facts", [
          [3, zorb],
          [4, other],
        ]),
      ),
    ).toBe(text);
    // The page's own footnote marks never become citations.
    expect(text).not.toContain("[12]");
  });

  it("never quotes a page's heading (a short line without a stop) as if it were a statement", () => {
    const page = "History of the Lake Zorb otters\nThe otters of Lake Zorb were first counted in 1911 by Ada Quill.";
    expect(researchText(step("Key facts", [[1, page]]))).toBe(
      "The otters of Lake Zorb were first counted in 1911 by Ada Quill [1].",
    );
    expect(
      researchText(step("关键事实", [[1, "左布湖水獭的历史\n左布湖的水獭在1911年首次被统计。"]], "zh", "左布湖的水獭")),
    ).toBe("左布湖的水獭在1911年首次被统计[1]。");
  });

  it("cites in Chinese style for a Chinese report", () => {
    const text = researchText(
      step("关键事实", [[1, "无关的话。左布湖的水獭在1911年首次被统计。"]], "zh", "左布湖的水獭"),
    )!;
    expect(text).toBe("左布湖的水獭在1911年首次被统计[1]。");
  });

  it("a page an earlier section read gives this one its next sentences, never the ones already quoted", () => {
    const long = `${zorb} Lake Zorb otters dive to 12 metres. Zorb otter pups stay with their mothers for a year.`;
    const earlier = (pages: [number, string][]) =>
      step("Key facts", pages).replace(/source (\d+)\)?;/g, (m, n) => m.replace(`source ${n}`, `source ${n} earlier`));
    const first = researchText(step("Key facts", [[3, long]]))!;
    const again = researchText(earlier([[3, long]]))!;
    expect(again).toBe(
      "Lake Zorb otters dive to 12 metres [3]. Zorb otter pups stay with their mothers for a year [3].",
    );
    for (const sentence of again.split(/(?<=\.) /)) expect(first).not.toContain(sentence);
    expect(researchText(earlier([[4, other]]))).toBe(
      "The pages read for this report hold nothing more on this than the sections above quote.",
    );
  });

  it("with no page it says no source was read and claims nothing, without repeating the request", () => {
    expect(researchText(step("Key facts", []))).toBe("No source was read for this section, so it makes no claims.");
    expect(researchText(step("关键事实", [], "zh", "左布湖的水獭，10分钟后告诉我"))).toBe(
      "本节没有读到任何资料，因此不作任何论断。",
    );
  });
});
