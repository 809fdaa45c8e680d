import { describe, expect, it } from "vitest";
import { TOOLS } from "../tool-names";
import { adversarialCorpus, fill } from "@/tests/adversarial-text";
import { cleanTarget, detectIntent, taskTitleFrom } from "./intent";

function call(text: string) {
  const intent = detectIntent(text);
  if (!intent) throw new Error(`expected a tool call for ${JSON.stringify(text)}, got none`);
  return intent;
}

describe("intents pick the right tool and arguments", () => {
  it.each([
    ["research the EU battery supply chain", "EU Battery Supply Chain"],
    ["Please research the risk of my portfolio, tell me in 10 minutes", "Risk of My Portfolio"],
    ["investigate lithium prices in 2024", "Lithium Prices in 2024"],
    [
      "look into the history of the printing press within 10 minutes even if it isn't done",
      "History of the Printing Press",
    ],
    ["Could you analyze solar panel recycling and tell me in half an hour?", "Solar Panel Recycling"],
    ["write a report on EU carbon border tax", "EU Carbon Border Tax"],
    ["In 10 minutes, research heat pumps", "Heat Pumps"],
    ["帮我研究一下组合的风险，十分钟后告诉我结果。", "组合的风险"],
    ["调研新能源汽车的电池供应链，十分钟内做不完也告诉我", "新能源汽车的电池供应链"],
    ["分析一下美元走势，十分钟内告诉我", "美元走势"],
    ["调查稀土出口管制", "稀土出口管制"],
  ])("start: %s", (text, title) => {
    const turn = call(text);
    expect(turn.toolName).toBe(TOOLS.start);
    expect(turn.input).toEqual({ title, prompt: text });
  });

  it("never puts a delivery phrase (or a time at all) into the title", () => {
    for (const text of [
      "research battery recycling and tell me in 10 minutes",
      "research battery recycling within 10 minutes, even if unfinished",
      "research battery recycling, get back to me in 2 hours done or not",
      "研究电池回收，十分钟后告诉我",
      "研究电池回收，十分钟之内，没做完也告诉我",
    ]) {
      const intent = call(text);
      if (intent.toolName !== TOOLS.start)
        throw new Error(`expected ${TOOLS.start} for ${JSON.stringify(text)}, got ${intent.toolName}`);
      const title = String(intent.input.title);
      expect(title).not.toMatch(/minute|hour|tell|within|even|unfinished|done or not|分钟|告诉|之内|没做完/i);
      expect(call(text).input).not.toHaveProperty("dueAt");
      expect(call(text).input).not.toHaveProperty("delivery");
    }
  });

  it.each([
    ["what's running?", { activeOnly: true }],
    ["What is running right now", { activeOnly: true }],
    ["list my tasks", {}],
    ["show me the background tasks", {}],
    ["any tasks?", {}],
    ["哪些任务在跑？", { activeOnly: true }],
    ["在跑什么", { activeOnly: true }],
    ["正在运行的任务", { activeOnly: true }],
    ["任务列表", {}],
  ])("list: %s", (text, input) => {
    const turn = call(text);
    expect(turn.toolName).toBe(TOOLS.list);
    expect(turn.input).toEqual(input);
  });

  it.each([
    ["stop the battery research", { task: "battery" }],
    ["Cancel the EU battery supply chain task", { task: "EU battery supply chain" }],
    ["abort the portfolio risk research please", { task: "portfolio risk" }],
    ["cancel it", {}],
    ["stop", {}],
    ["停止电池研究", { task: "电池" }],
    ["取消组合风险的任务", { task: "组合风险" }],
    ["把电池研究停掉", { task: "电池" }],
    ["取消", {}],
  ])("cancel: %s", (text, input) => {
    const turn = call(text);
    expect(turn.toolName).toBe(TOOLS.cancel);
    expect(turn.input).toEqual(input);
  });

  it.each([
    ["is that battery report done?", { task: "battery" }],
    ["Is the research finished yet?", {}],
    ["is it ready?", {}],
    ["status of the battery research", { task: "battery" }],
    ["what's the status of EU battery supply chain?", { task: "EU battery supply chain" }],
    ["how is the portfolio risk research going?", { task: "portfolio risk" }],
    ["组合的风险完成了吗？", { task: "组合的风险" }],
    ["电池研究进度", { task: "电池" }],
    ["组合风险怎么样了", { task: "组合风险" }],
    ["研究完成了吗", {}],
    ["what's the status?", {}],
  ])("check: %s", (text, input) => {
    const turn = call(text);
    expect(turn.toolName).toBe(TOOLS.check);
    expect(turn.input).toEqual(input);
  });

  it.each([
    ["also cover cobalt prices", { message: "cobalt prices" }],
    ["Please also include recycling rates.", { message: "recycling rates" }],
    ["add cobalt prices to the battery research", { task: "battery", message: "cobalt prices" }],
    ["include the 2023 numbers", { message: "the 2023 numbers" }],
    ["另外看看钴的价格", { message: "看看钴的价格" }],
    ["也要分析钴价", { message: "分析钴价" }],
    ["补充：回收环节", { message: "回收环节" }],
  ])("update: %s", (text, input) => {
    const turn = call(text);
    expect(turn.toolName).toBe(TOOLS.update);
    expect(turn.input).toEqual(input);
  });

  it.each([
    "hello there",
    "I researched this 10 minutes ago",
    "what is the weather like?",
    "你好",
    "thanks!",
    "Research shows coffee is healthy; what do you think?",
    "never mind, I figured it out",
    "Are you ready?",
  ])("chat, no tool: %s", (text) => {
    expect(detectIntent(text)).toBeNull();
  });

  it("titles research topics", () => {
    expect(taskTitleFrom("the state of the art in fusion")).toBe("State of the Art in Fusion");
    // Nothing left to name it by: a generic title in the topic's language.
    expect(taskTitleFrom(".")).toBe("Research");
    expect(taskTitleFrom("关于。")).toBe("研究任务");
  });
});

describe("adversarial inputs", () => {
  // The worker runs these on whole messages; before they were made linear,
  // inputs like "is" + 16,000 spaces took minutes. Generous bound, not a timing test.
  const BOUND_MS = 500;

  it.each([
    ["taskTitleFrom", taskTitleFrom],
    ["cleanTarget", cleanTarget],
  ] as const)("%s handles every max-length input in linear time", (_name, f) => {
    const slow: string[] = [];
    for (const { name, text } of adversarialCorpus()) {
      const t0 = performance.now();
      f(text);
      const ms = performance.now() - t0;
      if (ms > BOUND_MS) slow.push(`${name}: ${ms.toFixed(0)} ms`);
    }
    expect(slow).toEqual([]);
  });

  it("reads the same intents out of max-length messages", () => {
    const filler = fill("in in to to ", 15_000);
    expect(detectIntent(`add cobalt prices to ${filler} the battery research`)).toEqual({
      toolName: TOOLS.update,
      input: { task: `${filler} the battery`.trim(), message: "cobalt prices" },
    });
    expect(detectIntent(`is ${" ".repeat(15_000)}the battery report done?`)).toEqual({
      toolName: TOOLS.check,
      input: { task: "battery" },
    });
    expect(detectIntent(`research heat pumps${" ".repeat(15_000)}and tell me in 10 minutes`)).toEqual({
      toolName: TOOLS.start,
      input: { title: "Heat Pumps", prompt: `research heat pumps${" ".repeat(15_000)}and tell me in 10 minutes` },
    });
    expect(detectIntent(`列出${"的".repeat(15_000)}任务`)?.toolName).toBe(TOOLS.list);
    expect(detectIntent(`列出${"的".repeat(15_000)}\n任务`)).toBeNull();
  });
});
