import { describe, expect, it } from "vitest";
import type { LanguageModelV3Prompt } from "@ai-sdk/provider";
import { TOOLS } from "../tool-names";
import { adversarialCorpus } from "@/tests/adversarial-text";
import { planOfflineTurn, toolCallIdFor } from "./brain";
import { detectIntent } from "./intent";
import { chatReply } from "./replies";
import { afterTool, assistant, baseEvent, notificationPrompt, user } from "./test-prompts";

const ALL_TOOLS = Object.values(TOOLS);

function call(text: string, tools: string[] = ALL_TOOLS) {
  const turn = planOfflineTurn([{ role: "system", content: "sys" }, user(text)], tools);
  if (turn.type !== "tool-call")
    throw new Error(`expected a tool call for ${JSON.stringify(text)}, got text: ${turn.text}`);
  return turn;
}

function reply(prompt: LanguageModelV3Prompt): string {
  const turn = planOfflineTurn(prompt, ALL_TOOLS);
  if (turn.type !== "text") throw new Error("expected text");
  return turn.text;
}

describe("a user turn", () => {
  it.each([
    "research the EU battery supply chain",
    "帮我研究一下组合的风险，十分钟后告诉我结果。",
    "what's running?",
    "哪些任务在跑？",
    "stop the battery research",
    "把电池研究停掉",
    "is that battery report done?",
    "组合的风险完成了吗？",
    "add cobalt prices to the battery research",
    "补充：回收环节",
  ])("calls the tool the intent rules pick, with their arguments: %s", (text) => {
    const prompt: LanguageModelV3Prompt = [{ role: "system", content: "sys" }, user(text)];
    const intent = detectIntent(text)!;
    expect(planOfflineTurn(prompt, ALL_TOOLS)).toEqual({
      type: "tool-call",
      toolCallId: toolCallIdFor(prompt, text),
      ...intent,
    });
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
    const turn = planOfflineTurn([user(text)], ALL_TOOLS);
    expect(turn).toEqual({ type: "text", text: chatReply(text) });
  });

  it("calls no tool when the prompt offers none (or not the one it needs)", () => {
    expect(planOfflineTurn([user("research heat pumps")], []).type).toBe("text");
    expect(planOfflineTurn([user("research heat pumps")], [TOOLS.list]).type).toBe("text");
  });

  it("is deterministic, tool call ids included", () => {
    const a = call("research heat pumps");
    const b = call("research heat pumps");
    expect(a).toEqual(b);
    expect(a.toolCallId).toMatch(/^call-[0-9a-f]{16}$/);
    expect(call("research heat pumps in Norway").toolCallId).not.toBe(a.toolCallId);
  });

  it("answers research plan prompts with the plan", () => {
    expect(planOfflineTurn([user("[herald:research-plan] sections=2\nx")], ALL_TOOLS)).toEqual({
      type: "text",
      text: "1. Background and scope\n2. Key facts and figures",
    });
  });
});

describe("after a tool result", () => {
  it("never calls another tool after a tool result", () => {
    const prompt = afterTool(
      "research heat pumps",
      TOOLS.start,
      { title: "Heat Pumps", prompt: "x" },
      { taskId: "t", title: "Heat Pumps", status: "submitted" },
    );
    expect(planOfflineTurn(prompt, ALL_TOOLS).type).toBe("text");
  });

  it("replies in the language the user last typed, not the host's", () => {
    const prompt = afterTool(
      "停止电池研究",
      TOOLS.cancel,
      { task: "电池" },
      { cancelled: true, task: { title: "电池供应链" } },
    );
    expect(reply(prompt)).toContain("「电池供应链」已取消");
  });
});

describe("notification turns", () => {
  const narrate = (
    event: Record<string, unknown>,
    history: LanguageModelV3Prompt = [user("research the EU battery supply chain")],
  ) => reply([...history, assistant("ok"), user(notificationPrompt(event))]);

  it("narrates the event", () => {
    expect(narrate(baseEvent)).toBe(
      `Your background task "EU battery supply chain" has finished — the final report is above.`,
    );
  });

  it("speaks Chinese when the user last wrote Chinese", () => {
    const text = narrate({ ...baseEvent, title: "组合的风险" }, [user("帮我研究一下组合的风险，十分钟后告诉我结果。")]);
    expect(text).toBe("你的后台任务「组合的风险」已完成，最终报告见上方。");
  });

  it("does not treat a notification as a request, even if its title says 'research'", () => {
    const turn = planOfflineTurn([user(notificationPrompt({ ...baseEvent, title: "research everything" }))], ALL_TOOLS);
    expect(turn.type).toBe("text");
  });
});

describe("adversarial inputs", () => {
  // The worker runs these on whole messages; before they were made linear,
  // inputs like "is" + 16,000 spaces took minutes. Generous bound, not a timing test.
  const BOUND_MS = 500;

  it("planOfflineTurn handles every max-length input in linear time", () => {
    const slow: string[] = [];
    for (const { name, text } of adversarialCorpus()) {
      const t0 = performance.now();
      planOfflineTurn([user(text)], ALL_TOOLS);
      const ms = performance.now() - t0;
      if (ms > BOUND_MS) slow.push(`${name}: ${ms.toFixed(0)} ms`);
    }
    expect(slow).toEqual([]);
  });
});
