import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createOpenAICompatible } from "@ai-sdk/openai-compatible";
import { generateText, streamText, tool } from "ai";
import { z } from "zod";
import { alternationError, PLAN_TITLES, REALISTIC_PLAN, startOpenAIPeer, type OpenAIPeer } from "./openai-peer";

// The peer itself, through the AI SDK's own OpenAI-compatible provider: what it streams must parse as a real provider's would.
let peer: OpenAIPeer;
beforeAll(async () => {
  peer = await startOpenAIPeer();
});
afterAll(() => peer.stop());

const model = (includeUsage = true) =>
  createOpenAICompatible({ name: "peer", baseURL: peer.baseURL, includeUsage }).chatModel("peer-model");
const start = tool({ description: "start", inputSchema: z.object({ title: z.string(), prompt: z.string() }) });

describe("openai peer", () => {
  it("streams tool-call arguments split across chunks that reassemble, with text before them and usage at the end", async () => {
    peer.behaviours.textBeforeToolCalls = "Let me start that.";
    peer.behaviours.parallelToolCalls = true;
    try {
      const result = streamText({
        model: model(),
        prompt: "Please research batteries and solar panels",
        tools: { start_background_task: start },
      });
      const calls = await result.toolCalls;
      expect(calls.map((c) => (c.input as { title: string }).title)).toEqual(["batteries", "solar panels"]);
      expect(await result.text).toBe("Let me start that.");
      expect((await result.usage).inputTokens).toBeGreaterThan(0);
      expect(peer.requests.at(-1)?.streamOptions).toEqual({ include_usage: true });
    } finally {
      peer.behaviours.textBeforeToolCalls = null;
      peer.behaviours.parallelToolCalls = false;
    }
  });

  it("streams reasoning deltas apart from the text", async () => {
    peer.behaviours.reasoning = "reasoning_content";
    try {
      const result = streamText({ model: model(), prompt: "Hello" });
      expect(await result.reasoningText).toContain("keep it short");
      expect(await result.text).toBe("Hello! How can I help you today?");
    } finally {
      peer.behaviours.reasoning = null;
    }
  });

  it("writes a plan the way chat models do, and a schema-shaped object under json_schema", async () => {
    const { text } = await generateText({ model: model(), prompt: "[herald:research-plan] sections=4\nPlan it" });
    expect(text).toBe(REALISTIC_PLAN);
    expect(text.split("\n")[0]).toMatch(/^Here's a plan/);
    const before = peer.requests.length;
    await fetch(`${peer.baseURL}/chat/completions`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({
        model: "m",
        messages: [{ role: "user", content: "plan" }],
        response_format: {
          type: "json_schema",
          json_schema: {
            name: "plan",
            schema: { type: "object", properties: { sections: { type: "array", items: { type: "string" } } } },
          },
        },
      }),
    }).then(async (r) => {
      const body = (await r.json()) as { choices: { message: { content: string } }[] };
      expect(JSON.parse(body.choices[0].message.content)).toEqual({ sections: PLAN_TITLES });
    });
    expect(peer.requests.length).toBe(before + 1);
  });

  it("fails the next requests as told: 429 with Retry-After, then 5xx, then answers again", async () => {
    peer.failNext(1, { status: 429, retryAfter: 7 });
    peer.failNext(1, { status: 503 });
    const r1 = await fetch(`${peer.baseURL}/chat/completions`, {
      method: "POST",
      body: JSON.stringify({ messages: [] }),
    });
    expect([r1.status, r1.headers.get("retry-after")]).toEqual([429, "7"]);
    const r2 = await fetch(`${peer.baseURL}/chat/completions`, {
      method: "POST",
      body: JSON.stringify({ messages: [] }),
    });
    expect(r2.status).toBe(503);
    const r3 = await fetch(`${peer.baseURL}/chat/completions`, {
      method: "POST",
      body: JSON.stringify({ messages: [{ role: "user", content: "hi" }] }),
    });
    expect(r3.status).toBe(200);
  });

  it("a stalled request is accepted and never answered", async () => {
    peer.failNext(1, { stall: true });
    const aborted = new AbortController();
    const pending = fetch(`${peer.baseURL}/chat/completions`, { method: "POST", body: "{}", signal: aborted.signal });
    const n = peer.requests.length + 1;
    await peer.waitForRequests(n);
    expect(peer.requests[n - 1].outcome).toBe("stall");
    aborted.abort();
    await expect(pending).rejects.toThrow();
  });

  it("keeps partial text of a cut stream reachable and refuses tools like vLLM without its flags", async () => {
    peer.behaviours.cutStreamAfterChunks = 3;
    try {
      const result = streamText({ model: model(), prompt: "Hello" });
      const parts: string[] = [];
      // The SDK throws out of the iteration when the socket closes mid-body: the text seen before it is all there is.
      const consume = async () => {
        for await (const p of result.fullStream) parts.push(p.type === "text-delta" ? p.text : `<${p.type}>`);
      };
      await expect(consume()).rejects.toThrow();
      expect(parts.join("")).toContain("Hello! How");
      expect(peer.requests.at(-1)?.outcome).toBe("cut");
    } finally {
      peer.behaviours.cutStreamAfterChunks = null;
    }
    peer.behaviours.refuseTools = "vllm";
    try {
      await expect(
        generateText({ model: model(), prompt: "hi", tools: { start_background_task: start }, maxRetries: 0 }),
      ).rejects.toThrow(/enable-auto-tool-choice/);
    } finally {
      peer.behaviours.refuseTools = null;
    }
  });

  it("names the history a strict chat template refuses", () => {
    expect(
      alternationError([
        { role: "system", content: "s" },
        { role: "user", content: "a" },
        { role: "assistant", content: "b" },
      ]),
    ).toBeNull();
    expect(
      alternationError([
        { role: "user", content: "a" },
        { role: "user", content: "b" },
      ]),
    ).toMatch(/alternate/);
    expect(
      alternationError([
        { role: "user", content: "a" },
        { role: "assistant", content: "b" },
        { role: "assistant", content: "c" },
      ]),
    ).toMatch(/alternate/);
    const call = { id: "c1", type: "function", function: { name: "x", arguments: "{}" } };
    expect(
      alternationError([
        { role: "user", content: "a" },
        { role: "assistant", content: null, tool_calls: [call] },
        { role: "tool", tool_call_id: "c1", content: "{}" },
        { role: "assistant", content: "ok" },
      ]),
    ).toBeNull();
    expect(
      alternationError([
        { role: "user", content: "a" },
        { role: "tool", tool_call_id: "c1", content: "{}" },
      ]),
    ).toMatch(/Tool message/);
  });
});
