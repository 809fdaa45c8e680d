import { describe, expect, it } from "vitest";
import {
  InvalidResponseDataError,
  type LanguageModelV3CallOptions,
  type LanguageModelV3StreamPart,
} from "@ai-sdk/provider";
import { acceptMissingFinishReason, conformRequest } from "./model";

async function through(parts: LanguageModelV3StreamPart[]): Promise<LanguageModelV3StreamPart[]> {
  const out: LanguageModelV3StreamPart[] = [];
  const stream = new ReadableStream<LanguageModelV3StreamPart>({
    start(c) {
      parts.forEach((p) => c.enqueue(p));
      c.close();
    },
  }).pipeThrough(acceptMissingFinishReason());
  for await (const p of stream) out.push(p);
  return out;
}

const usage = {
  inputTokens: { total: 1, noCache: 1, cacheRead: 0, cacheWrite: 0 },
  outputTokens: { total: 1, text: 1, reasoning: 0 },
};
const missing = {
  type: "error" as const,
  error: new InvalidResponseDataError({ data: undefined, message: "Response stream ended without a finish reason." }),
};
const finish = { type: "finish" as const, finishReason: { unified: "error" as const, raw: undefined }, usage };

describe("acceptMissingFinishReason", () => {
  it("turns a stream that ended without a finish reason into a normal end: stop after text, tool-calls after calls", async () => {
    const text = await through([{ type: "text-delta", id: "t", delta: "Hi" }, missing, finish]);
    expect(text.map((p) => p.type)).toEqual(["text-delta", "finish"]);
    expect(text.at(-1)).toMatchObject({ finishReason: { unified: "stop" } });
    const calls = await through([{ type: "tool-call", toolCallId: "c", toolName: "x", input: "{}" }, missing, finish]);
    expect(calls.at(-1)).toMatchObject({ finishReason: { unified: "tool-calls" } });
  });

  it("leaves other errors and finishes alone", async () => {
    const other = { type: "error" as const, error: new Error("boom") };
    const out = await through([other, finish]);
    expect(out).toEqual([other, finish]);
  });
});

describe("conformRequest", () => {
  const params: LanguageModelV3CallOptions = {
    prompt: [
      { role: "system", content: "s" },
      { role: "user", content: [{ type: "text", text: "a" }] },
      { role: "user", content: [{ type: "text", text: "b" }] },
    ],
    tools: [
      {
        type: "function",
        name: "t",
        inputSchema: {
          $schema: "http://json-schema.org/draft-07/schema#",
          type: "object",
          properties: { x: { type: "string", maxLength: 3 } },
        },
      },
    ],
  };

  it("alternates roles and sends strict tool schemas, strict: true only where the profile says so", () => {
    const openai = conformRequest(params, { strictTools: true });
    expect(openai.prompt.map((m) => m.role)).toEqual(["system", "user"]);
    expect(openai.tools?.[0]).toEqual({
      type: "function",
      name: "t",
      strict: true,
      inputSchema: {
        type: "object",
        properties: { x: { type: ["string", "null"] } },
        required: ["x"],
        additionalProperties: false,
      },
    });
    expect(conformRequest(params, { strictTools: false }).tools?.[0]).not.toHaveProperty("strict");
  });

  it("puts an object response schema in the same subset and leaves other response formats alone", () => {
    const schema = {
      $schema: "x",
      type: "object" as const,
      properties: {
        sections: { type: "array" as const, items: { type: "string" as const, maxLength: 200 }, minItems: 1 },
      },
      required: ["sections"],
    };
    const json = conformRequest(
      { ...params, responseFormat: { type: "json", schema, name: "plan" } },
      { strictTools: true },
    );
    expect(json.responseFormat).toEqual({
      type: "json",
      name: "plan",
      schema: {
        type: "object",
        properties: { sections: { type: "array", items: { type: "string" } } },
        required: ["sections"],
        additionalProperties: false,
      },
    });
    expect(
      conformRequest({ ...params, responseFormat: { type: "text" } }, { strictTools: true }).responseFormat,
    ).toEqual({ type: "text" });
  });
});
