import { describe, expect, it } from "vitest";
import type { LanguageModelV3, LanguageModelV3CallOptions } from "@ai-sdk/provider";
import { getDb } from "@/lib/db/client";
import { transactionWithEvents } from "@/lib/events/emit";
import { createOfflineModel } from "@/lib/agent/offline-model";
import { appendMessage } from "@/lib/chat/append-message";
import type { TaskStep } from "@/lib/db/generated/client.ts";
import { createConversationFor, signUp } from "@/tests/helpers";
import { researchDriver } from "./research";
import type { StepOutcome } from "./types";

/** The real offline model, with each prompt it was sent kept for the assertions. */
function recordingModel(prompts: string[]): LanguageModelV3 {
  const model = createOfflineModel();
  return {
    ...model,
    doGenerate: (options: LanguageModelV3CallOptions) => {
      prompts.push(JSON.stringify(options.prompt));
      return model.doGenerate(options);
    },
  };
}

const asStep = (taskId: string, o: StepOutcome, i: number): TaskStep => ({
  id: `s${i}`,
  taskId,
  index: o.step!.index,
  kind: o.step!.kind,
  input: o.step!.input as never,
  output: o.step!.output as never,
  modelRequests: o.step!.modelRequests,
  inputTokens: 0,
  outputTokens: 0,
  createdAt: new Date(),
});

describe("native research writes in the conversation's language", () => {
  it("a Chinese message whose task prompt is English gets a Chinese plan, progress, headings and body", async () => {
    const user = await signUp("LangZh");
    const conversationId = await createConversationFor(user);
    const origin = await transactionWithEvents((tx) =>
      appendMessage(tx, { conversationId, ownerId: user.id, kind: "user", content: "请帮我研究欧洲的电动车市场" }),
    );
    // What a real model's start tool may hand over: the topic restated in English.
    const task = await getDb().task.create({
      data: {
        ownerId: user.id,
        conversationId,
        title: "EV market in Europe",
        prompt: "the EV market in Europe",
        originMessageId: origin.id,
        options: { simulate: { steps: 2, stepMs: 0 } },
        status: "running",
        nextRunAt: new Date(Date.now() + 86_400_000),
      },
    });
    const prompts: string[] = [];
    const ctx = {
      task,
      pendingUpdates: [],
      steps: [] as TaskStep[],
      model: recordingModel(prompts),
      signal: new AbortController().signal,
    };

    const plan = await researchDriver.step(ctx);
    expect(plan.step?.output).toEqual({ sections: ["背景与范围", "关键事实与数据"], lang: "zh" });
    expect(plan.progress).toBe("已规划 2 个部分：背景与范围；关键事实与数据");
    expect(plan.count).toEqual({ done: 1, total: 3 });
    expect(prompts[0]).toContain("lang=zh");
    expect(prompts[0]).toContain("Simplified Chinese");

    ctx.steps = [asStep(task.id, plan, 0)];
    const first = await researchDriver.step(ctx);
    expect(first.progress).toBe("已研究 1/2：背景与范围");
    expect(first.publish?.partial).toBe(true);
    expect(first.publish?.content).toContain("_阶段性报告：已完成 1/2 个部分的研究。_");
    expect(first.count).toEqual({ done: 2, total: 3 });

    ctx.steps.push(asStep(task.id, first, 1));
    const last = await researchDriver.step(ctx);
    expect(last.finished).toBe(true);
    const body = last.publish!.content;
    // No network here: the report opens with its summary, says it read nothing, and lists no sources.
    // The summary says so once (the sections' shared "read nothing" line is not a finding); no section repeats the request.
    expect(body).toMatch(
      /^# EV market in Europe\n\n## 摘要\n\n_本报告没有参考任何资料：[^\n]+_\n\n## 背景与范围\n\n本节没有读到任何资料，因此不作任何论断。/,
    );
    expect(body).not.toContain("the EV market in Europe");
    expect(body).not.toContain("参考来源");
    expect(body).toContain("## 关键事实与数据");
    expect(body).not.toMatch(/Background|Finding|Partial report|Sources|Summary/);
    expect(last.count).toEqual({ done: 3, total: 3 });
  });

  it("without an origin message the request's language decides, as before", async () => {
    const user = await signUp("LangEn");
    const conversationId = await createConversationFor(user);
    const task = await getDb().task.create({
      data: {
        ownerId: user.id,
        conversationId,
        title: "Heat pumps",
        prompt: "heat pumps in Norway",
        options: { simulate: { steps: 1, stepMs: 0 } },
      },
    });
    const plan = await researchDriver.step({
      task,
      pendingUpdates: [],
      steps: [],
      model: createOfflineModel(),
      signal: new AbortController().signal,
    });
    expect(plan.step?.output).toEqual({ sections: ["Background and scope"], lang: "en" });
    expect(plan.progress).toBe("Planned 1 section: Background and scope");
  });
});
