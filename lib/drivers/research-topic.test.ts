import { describe, expect, it } from "vitest";
import { superlinearInputs, TYPICAL_MESSAGE } from "@/tests/adversarial-text";
import {
  bareTopic,
  focusOf,
  reportTitle,
  requestForWriting,
  steeringTerms,
  topicKind,
  topicOf,
} from "./research-topic";

describe("a research request's topic, apart from how it was asked", () => {
  it("drops the delivery phrase for the writer, and the politeness and verb for searches", () => {
    expect(requestForWriting("Research the history of printing in Europe and tell me in 2 minutes")).toBe(
      "Research the history of printing in Europe",
    );
    expect(requestForWriting("研究一下欧洲印刷术的历史，10分钟后告诉我")).toBe("研究一下欧洲印刷术的历史");
    expect(topicOf("Could you please research the history of printing in Europe, and tell me in 2 minutes.")).toBe(
      "the history of printing in Europe",
    );
    expect(topicOf("请帮我研究一下欧洲印刷术的历史，10分钟后告诉我")).toBe("欧洲印刷术的历史");
    expect(topicOf("the otters of Lake Zorb")).toBe("the otters of Lake Zorb");
  });

  it("titles the report by the task's title, or by the cleaned topic when that title is the raw request", () => {
    expect(reportTitle("Lake Zorb otters", "the otters of Lake Zorb")).toBe("Lake Zorb otters");
    expect(reportTitle("Research methods in biology", "research methods in biology for a class")).toBe(
      "Research methods in biology",
    );
    const raw = "research the history of printing in Europe, focusing on monks, and tell me in 2 minutes";
    expect(reportTitle(raw, raw)).toBe("The history of printing in Europe");
    expect(reportTitle("History of printing, tell me in 2 minutes", raw)).toBe("History of printing");
    expect(reportTitle("研究欧洲印刷术的历史，10分钟后告诉我", "研究欧洲印刷术的历史，10分钟后告诉我")).toBe(
      "欧洲印刷术的历史",
    );
  });

  it("names the kind of topic, whatever the language", () => {
    expect(topicKind("the history of printing")).toBe("history");
    expect(topicKind("欧洲印刷术的历史")).toBe("history");
    expect(topicKind("should I buy a heat pump")).toBe("decision");
    expect(topicKind("要不要买热泵")).toBe("decision");
    expect(topicKind("Rust vs Go")).toBe("comparison");
    expect(topicKind("the EV market in Europe")).toBe("market");
    expect(topicKind("how GPS technology works")).toBe("technology");
    expect(topicKind("the otters of Lake Zorb")).toBe("general");
  });

  it("reads what an instruction asks for without its verbs", () => {
    expect(focusOf("Please also focus on the period before Gutenberg..")).toBe("the period before Gutenberg");
    expect(focusOf("重点写古登堡之前的时期")).toBe("古登堡之前的时期");
    expect(focusOf("写实主义绘画")).toBe("写实主义绘画");
    expect(steeringTerms(["Focus on the period before Gutenberg."])).toEqual(["period", "before", "gutenberg"]);
  });

  it("takes time linear in the text on every adversarial input (these run on whole messages)", () => {
    expect(topicOf(TYPICAL_MESSAGE)).toBe("the EU battery supply chain, focusing on cobalt and lithium");
    // stripDeliveryPhrases has its own (lib/text/delivery-phrases.test.ts); topicKind and steeringTerms only look words
    // up in sets. What is left is cheap enough that a loaded machine cannot stretch it past the helper's floor.
    for (const f of [(t: string) => bareTopic(t), focusOf]) expect(superlinearInputs(f)).toEqual([]);
  });
});
