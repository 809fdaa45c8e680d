import { describe, expect, it } from "vitest";
import { generateText, stepCountIs, tool } from "ai";
import { z } from "zod";
import { TOOLS } from "./tool-names";
import { chunkText, createOfflineModel } from "./offline-model";

describe("through the AI SDK", () => {
  it("a tool call, its result and the closing reply in one run", async () => {
    const calls: unknown[] = [];
    const result = await generateText({
      model: createOfflineModel({ chunkDelayMs: 0 }),
      prompt: "stop the battery research",
      tools: {
        [TOOLS.cancel]: tool({
          inputSchema: z.object({ task: z.string().nullish() }),
          execute: async (input) => {
            calls.push(input);
            return { cancelled: true, task: { title: "EU battery supply chain" }, message: "Cancellation requested" };
          },
        }),
      },
      stopWhen: stepCountIs(5),
    });
    expect(calls).toEqual([{ task: "battery" }]);
    expect(result.steps).toHaveLength(2);
    expect(result.text).toBe(
      `OK, "EU battery supply chain" is cancelled. Anything it already published stays in the conversation.`,
    );
  });
});

describe("streaming", () => {
  it("chunks concatenate to exactly the text", () => {
    for (const text of ["", "one", "  two  words \n and more ", "中文，没有空格。"])
      expect(chunkText(text).join("")).toBe(text);
  });
});
