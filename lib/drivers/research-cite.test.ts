import { describe, expect, it } from "vitest";
import { checkCitations, citedNumbers, firstSentence } from "./research-cite";
import { cpuMs } from "@/tests/adversarial-text";

describe("citations the host checks", () => {
  it("removes numbers that name no source read for the task, keeps the rest as written", () => {
    const known = new Set([1, 2, 3]);
    const { text, removed } = checkCitations(
      "Otters hold hands [2]. Seals sing [7]. Both swim [1, 9]. Whales [4，5] dive [3].",
      known,
    );
    expect(text).toBe("Otters hold hands [2]. Seals sing. Both swim [1]. Whales dive [3].");
    expect(removed).toBe(4);
    expect(citedNumbers(text)).toEqual([2, 1, 3]);
  });

  it("leaves links, footnote marks and other brackets alone, and a text without sources loses every number", () => {
    const md = "See [1](https://x.example) and [^2] and [note] and [12a].";
    expect(checkCitations(md, new Set()).text).toBe(md);
    expect(checkCitations("Claim [1][2]. 事实[3]。", new Set())).toEqual({ text: "Claim. 事实。", removed: 3 });
  });

  it("keeps a bracketed year or other number no source can carry as plain text, still removing unknown sources", () => {
    const known = new Set([1, 2]);
    const { text, removed } = checkCitations(
      "Founded [1911] and renamed [2023] [2]. A census [1000, 1001] counts. Seals sing [7]. Otters [999].",
      known,
    );
    expect(text).toBe("Founded [1911] and renamed [2023] [2]. A census [1000, 1001] counts. Seals sing. Otters.");
    expect(removed).toBe(2);
    expect(citedNumbers(text)).toEqual([2]);
    expect(citedNumbers("In [1911] [1].")).toEqual([1]);
  });

  it("is linear on adversarial input", () => {
    const evil = `[${"1,".repeat(50_000)}`;
    const ms = cpuMs(() => {
      checkCitations(evil, new Set([1]));
      citedNumbers(evil);
      firstSentence("a".repeat(100_000));
    });
    expect(ms).toBeLessThan(1_000);
  });

  it("a summary line is the section's first sentence with its citations", () => {
    expect(firstSentence("Otters hold hands [2]. They float [3].")).toBe("Otters hold hands [2].");
    expect(firstSentence("Otters hold hands. [2] They float.")).toBe("Otters hold hands. [2]");
    expect(firstSentence("水獭会牵手[2]。它们漂浮[3]。")).toBe("水獭会牵手[2]。");
  });
});
