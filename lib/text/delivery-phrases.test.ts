import { describe, expect, it } from "vitest";
import { chineseNumber, parseDeliveryPhrase, stripDeliveryPhrases } from "@/lib/text/delivery-phrases";
import { MAX_MESSAGE_CHARS } from "@/lib/contract/schemas";
import { adversarialCorpus, fill } from "@/tests/adversarial-text";

type Expected = [mode: "at" | "by", seconds: number, reportIfUnfinished?: boolean] | null;

const TABLE: [string, Expected][] = [
  // at: "tell me in …"
  ["tell me in 10 minutes", ["at", 600]],
  ["research the EU battery supply chain and tell me in 10 minutes", ["at", 600]],
  ["in 10 min", ["at", 600]],
  ["in 10min", ["at", 600]],
  ["in 2 hours", ["at", 7200]],
  ["in 30 seconds", ["at", 30]],
  ["in an hour", ["at", 3600]],
  ["in half an hour", ["at", 1800]],
  ["let me know in fifteen minutes", ["at", 900]],
  ["get back to me in twenty-five minutes", ["at", 1500]],
  ["in a couple of hours", ["at", 7200]],
  ["an hour and a half from now", ["at", 5400]],
  ["in 0.25 minutes", ["at", 15]],
  ["report back in 1.5 hours", ["at", 5400]],
  ["Tell me in Ten Minutes.", ["at", 600]],
  // by: "within …"
  ["within 10 minutes", ["by", 600]],
  ["by 10 minutes from now", ["by", 600]],
  ["in under 10 minutes", ["by", 600]],
  ["in less than an hour", ["by", 3600]],
  ["within the next hour", ["by", 3600]],
  ["in the next 20 minutes", ["by", 1200]],
  ["have it ready within half an hour", ["by", 1800]],
  // "within" is the stricter promise when both appear
  ["tell me in 20 minutes, within 10 minutes at the latest", ["by", 600]],
  // report anyway, combined with either mode
  ["tell me in 10 minutes even if it isn't done", ["at", 600, true]],
  ["within 10 minutes, even if unfinished", ["by", 600, true]],
  ["in 5 minutes, report anyway", ["at", 300, true]],
  ["within an hour, done or not", ["by", 3600, true]],
  // report anyway alone names no time
  ["tell me even if it isn't done", null],
  ["report anyway", null],
  // Chinese
  ["帮我研究一下组合的风险，十分钟后告诉我结果。", ["at", 600]],
  ["十分钟后告诉我", ["at", 600]],
  ["十分钟内告诉我", ["by", 600]],
  ["十分钟之内", ["by", 600]],
  ["十分钟以内给我结果", ["by", 600]],
  ["十分钟内做不完也告诉我", ["by", 600, true]],
  ["十分钟后告诉我，没做完也告诉我", ["at", 600, true]],
  ["二十分钟后通知我", ["at", 1200]],
  ["十五分钟内", ["by", 900]],
  ["两小时后告诉我", ["at", 7200]],
  ["半小时后告诉我", ["at", 1800]],
  ["半个小时内", ["by", 1800]],
  ["一个小时后告诉我", ["at", 3600]],
  ["一个半小时后告诉我", ["at", 5400]],
  ["30分钟后告诉我", ["at", 1800]],
  ["2小时内给我结果", ["by", 7200]],
  ["３０分钟内", ["by", 1800]],
  ["一刻钟后告诉我", ["at", 900]],
  // negatives: no promise was asked for
  ["I researched this 10 minutes ago", null],
  ["research what changed in 2 hours of trading", null],
  ["trends in the 1990s.", null],
  ["hello", null],
  ["in 0 minutes", null],
  ["我十分钟前研究过", null],
  ["我十分钟之前研究过这个", null],
  ["这件事十分重要", null],
  ["做不完也告诉我", null],
];

describe("parseDeliveryPhrase", () => {
  it.each(TABLE)("%s", (text, expected) => {
    const got = parseDeliveryPhrase(text);
    if (expected === null) expect(got).toBeNull();
    else
      expect(got).toEqual({ mode: expected[0], dueInSeconds: expected[1], reportIfUnfinished: expected[2] ?? false });
  });

  it.each([
    ["research X and tell me in 10 minutes, stop at the deadline", "at"],
    ["research X within 10 minutes and don't go past the deadline", "by"],
    ["tell me in 5 minutes; no overtime", "at"],
    ["研究一下电池，十分钟后告诉我，到点就停", "at"],
    ["十分钟内告诉我，不要超时", "by"],
  ])("a stop-at-the-deadline phrase turns overtime off: %s", (text, mode) => {
    expect(parseDeliveryPhrase(text)).toMatchObject({ mode, allowOvertime: false });
  });

  it.each([
    "research X and tell me in 10 minutes; don't stop at the deadline",
    "tell me in 10 minutes, the deadline is what matters",
    "十分钟后告诉我，超时也没关系",
  ])("without a stop phrase overtime stays the default: %s", (text) => {
    expect(parseDeliveryPhrase(text)).not.toHaveProperty("allowOvertime");
  });

  it("a stop phrase without a deadline promises nothing", () => {
    expect(parseDeliveryPhrase("stop at the deadline")).toBeNull();
    expect(parseDeliveryPhrase("到点就停")).toBeNull();
  });

  it("reads Chinese numerals", () => {
    expect(chineseNumber("十")).toBe(10);
    expect(chineseNumber("十五")).toBe(15);
    expect(chineseNumber("二十")).toBe(20);
    expect(chineseNumber("二十五")).toBe(25);
    expect(chineseNumber("两")).toBe(2);
    expect(chineseNumber("一百二十")).toBe(120);
    expect(chineseNumber("30")).toBe(30);
    expect(chineseNumber("abc")).toBeNull();
  });
});

describe("stripDeliveryPhrases", () => {
  it.each([
    ["research the EU battery supply chain and tell me in 10 minutes", "research the EU battery supply chain"],
    ["research X within 10 minutes and tell me even if it isn't done", "research X"],
    ["research the risk of my portfolio, tell me in 10 minutes", "research the risk of my portfolio"],
    ["帮我研究一下组合的风险，十分钟后告诉我结果。", "帮我研究一下组合的风险。"],
    ["研究电池，十分钟内做不完也告诉我", "研究电池"],
    ["research X and tell me in 10 minutes, stop at the deadline", "research X"],
    ["研究一下电池，十分钟后告诉我，到点就停", "研究一下电池"],
    // Only phrases the parser accepted are removed.
    ["research what changed in 2 hours of trading", "research what changed in 2 hours of trading"],
  ])("%s", (text, expected) => {
    expect(stripDeliveryPhrases(text)).toBe(expected);
  });
});

describe("adversarial inputs", () => {
  // Each of these took seconds (up to ~18 s) before the patterns were made
  // linear; now each takes a few milliseconds. The bound only catches a
  // pattern that backtracks again, it is not a timing test.
  const BOUND_MS = 500;

  it.each([
    ["parseDeliveryPhrase", parseDeliveryPhrase],
    ["stripDeliveryPhrases", stripDeliveryPhrases],
  ] as const)("%s handles every max-length input in linear time", (_name, f) => {
    const slow: string[] = [];
    for (const { name, text } of adversarialCorpus()) {
      expect(text.length).toBe(MAX_MESSAGE_CHARS);
      const t0 = performance.now();
      f(text);
      const ms = performance.now() - t0;
      if (ms > BOUND_MS) slow.push(`${name}: ${ms.toFixed(0)} ms`);
    }
    expect(slow).toEqual([]);
  });

  it("still finds a phrase at the end of a max-length message, past thousands of near misses", () => {
    const phrase = " tell me in 10 minutes, even if it isn't done";
    for (const unit of ["in in ", "within 1 ", "1 and a half ", "even if ", "   ", "十 个 "]) {
      const text = fill(unit, MAX_MESSAGE_CHARS, "research x ", phrase);
      expect(parseDeliveryPhrase(text)).toEqual({ mode: "at", dueInSeconds: 600, reportIfUnfinished: true });
      expect(stripDeliveryPhrases(text)).not.toMatch(/10 minutes|isn't done/);
    }
    const zh = fill("一二三", MAX_MESSAGE_CHARS, "研究", "，十分钟内告诉我");
    expect(parseDeliveryPhrase(zh)).toEqual({ mode: "by", dueInSeconds: 600, reportIfUnfinished: false });
  });
});
