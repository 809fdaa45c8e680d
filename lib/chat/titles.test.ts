import { describe, expect, it } from "vitest";
import { DEFAULT_TITLE, isSmallTalk, titleFromMessage } from "./titles";
import { superlinearInputs } from "@/tests/adversarial-text";

describe("titleFromMessage", () => {
  it.each([
    ["Please research the EU battery supply chain!!!", "EU battery supply chain"],
    ["look into heat pumps --", "Heat pumps"],
    ["你好，请帮我研究一下固态电池。", "固态电池"],
    ["!!!", "!!!"],
    ["   ", DEFAULT_TITLE],
  ])("%s → %s", (text, expected) => {
    expect(titleFromMessage(text)).toBe(expected);
  });

  it("takes time linear in the message on every adversarial input (a long run of trailing punctuation before a letter)", () => {
    expect(superlinearInputs(titleFromMessage)).toEqual([]);
  });
});

describe("isSmallTalk", () => {
  it.each(["Hi", "hello!", "Hi there 👋", "能做什么", "你能做什么？", "你好", "What can you do?", "   "])(
    "%s names no topic",
    (text) => {
      expect(isSmallTalk(text)).toBe(true);
    },
  );
  it.each(["Hi, research heat pumps", "钠离子电池", "What can you do about heat pumps?"])("%s names one", (text) => {
    expect(isSmallTalk(text)).toBe(false);
  });
});
