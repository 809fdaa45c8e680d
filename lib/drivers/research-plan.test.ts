import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createOpenAICompatible } from "@ai-sdk/openai-compatible";
import { startOpenAIPeer, PLAN_TITLES, REALISTIC_PLAN, type OpenAIPeer } from "@/tests/openai-peer";
import { cleanTitle, readPlan, requestPlan } from "./research-plan";
import { parsePlan } from "./research";

describe("readPlan (endpoints without JSON mode)", () => {
  it("reads a real model's prose plan: the four sections, no lead-in, no **", () => {
    expect(readPlan(REALISTIC_PLAN, 4)).toEqual({ sections: PLAN_TITLES, source: "list" });
    // More requested than written: the rest are named by position; fewer: the first n.
    expect(readPlan(REALISTIC_PLAN, 5).sections.at(-1)).toBe("Part 5");
    expect(readPlan(REALISTIC_PLAN, 2).sections).toEqual(PLAN_TITLES.slice(0, 2));
  });

  it("drops sections named like the headings the host writes itself (Summary, Sources)", () => {
    expect(readPlan('{"sections": ["Summary", "Origins", "Key periods", "Sources"]}', 3).sections).toEqual([
      "Origins",
      "Key periods",
      "Part 3",
    ]);
    expect(parsePlan("1. 摘要\n2. 起源\n3. 参考来源", 1, "zh")).toEqual(["起源"]);
  });

  it("prefers a JSON object anywhere in the text, fenced or not", () => {
    const fenced = 'Sure! Here it is:\n```json\n{"sections": ["**Alpha**", "Beta", "Gamma"]}\n```';
    expect(readPlan(fenced, 3)).toEqual({ sections: ["Alpha", "Beta", "Gamma"], source: "json" });
    expect(readPlan('["One", "Two"]', 2)).toEqual({ sections: ["One", "Two"], source: "json" });
  });

  it("reads bullets, headings and glosses; plain lines only without any list", () => {
    expect(readPlan("Plan:\n- Background: the setting\n- *Costs* and prices\n- Outlook", 3).sections).toEqual([
      "Background",
      "Costs",
      "Outlook",
    ]);
    expect(readPlan("## Part one\n## Part two", 2).sections).toEqual(["Part one", "Part two"]);
    expect(readPlan("Background\nCosts\nOutlook", 3)).toEqual({
      sections: ["Background", "Costs", "Outlook"],
      source: "lines",
    });
    expect(parsePlan("1. **背景** — 范围", 3, "zh")).toEqual(["背景", "第 2 节", "第 3 节"]);
    expect(cleanTitle("3) __Risks__ - what could go wrong.")).toBe("Risks");
  });
});

describe("requestPlan against the OpenAI-compatible peer", () => {
  let peer: OpenAIPeer;
  beforeAll(async () => {
    peer = await startOpenAIPeer();
  });
  afterAll(async () => {
    await peer?.stop();
  });
  const model = (structured = false) =>
    createOpenAICompatible({
      name: "peer",
      baseURL: peer.baseURL,
      apiKey: "k",
      supportsStructuredOutputs: structured,
    }).chatModel("peer-model");
  const PROMPT = "[herald:research-plan] sections=4 lang=en\nPlan a report as JSON.\nTopic: steel";

  it("asks for structured output (json_schema where supported) and reads the object", async () => {
    const plan = await requestPlan(model(true), PROMPT, 4);
    // The peer fills every string array of the schema with the titles: one search query per section comes back too.
    expect(plan).toEqual({ sections: PLAN_TITLES, queries: PLAN_TITLES, requests: 1, source: "structured" });
    expect((peer.requests.at(-1)?.responseFormat as { type?: string }).type).toBe("json_schema");
    const jsonMode = await requestPlan(model(false), PROMPT, 4);
    expect(jsonMode).toEqual({ sections: PLAN_TITLES, requests: 1, source: "structured" });
    expect(peer.requests.at(-1)?.responseFormat).toEqual({ type: "json_object" });
  });

  it("falls back when JSON mode is ignored (prose answer) or refused (400)", async () => {
    peer.script({ text: REALISTIC_PLAN });
    expect(await requestPlan(model(), PROMPT, 4)).toEqual({ sections: PLAN_TITLES, requests: 1, source: "list" });
    peer.behaviours.refuseResponseFormat = true;
    try {
      const before = peer.requests.length;
      expect(await requestPlan(model(), PROMPT, 4)).toEqual({ sections: PLAN_TITLES, requests: 2, source: "list" });
      expect(peer.requests.slice(before).map((r) => [r.outcome, r.responseFormat === null])).toEqual([
        ["400", false],
        ["ok", true],
      ]);
    } finally {
      peer.behaviours.refuseResponseFormat = false;
    }
  });
});
