import { describe, expect, it } from "vitest";
import { DEFAULT_TITLE, titleFromMessage } from "./titles";
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
