import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { generateText, streamText } from "ai";
import { APICallError } from "@ai-sdk/provider";
import { createOpenAICompatible } from "@ai-sdk/openai-compatible";
import { startOpenAIPeer, GREETING_TEXT, type OpenAIPeer } from "@/tests/openai-peer";
import { waitFor } from "@/tests/helpers";
import { Breaker } from "@/lib/util/breaker";
import { resilientModel } from "./resilient-model";
import { ModelTimeoutError, ProviderWaitError } from "./retry";
import type { TokenUsage } from "./usage";

let peer: OpenAIPeer;
beforeAll(async () => {
  peer = await startOpenAIPeer();
});
afterAll(async () => {
  await peer?.stop();
});

const base = () =>
  createOpenAICompatible({ name: "peer", baseURL: peer.baseURL, apiKey: "k", includeUsage: true }).chatModel(
    "peer-model",
  );
const say = (model: ReturnType<typeof base>) => generateText({ model, prompt: "Hi", maxRetries: 0 });

describe("resilientModel against an OpenAI-compatible peer", () => {
  it("honours Retry-After on a 429 before trying again", async () => {
    const before = peer.requests.length;
    peer.failNext(1, { status: 429, retryAfter: 1 });
    const started = Date.now();
    const model = resilientModel(base(), {
      mode: "interactive",
      breaker: new Breaker(),
      policy: { budgetMs: 10_000, timeoutMs: 5_000, answerTimeoutMs: 5_000 },
    });
    const { text } = await say(model);
    expect(text).toBe(GREETING_TEXT);
    expect(Date.now() - started).toBeGreaterThanOrEqual(950);
    expect(peer.requests.slice(before).map((r) => r.outcome)).toEqual(["429", "ok"]);
  });

  it("gives up once the interactive budget is spent and says why", async () => {
    peer.failNext(1, { status: 429, retryAfter: 30 });
    const model = resilientModel(base(), {
      mode: "interactive",
      breaker: new Breaker(),
      policy: { budgetMs: 2_000, timeoutMs: 5_000, answerTimeoutMs: 5_000 },
    });
    const started = Date.now();
    const err = await say(model).catch((e: unknown) => e);
    expect(APICallError.isInstance(err) && err.statusCode).toBe(429);
    // Well short of the 30 s it was told to wait: it gave up rather than waited (a loaded machine still passes).
    expect(Date.now() - started).toBeLessThan(20_000);
  });

  it("does not retry a refusal (400)", async () => {
    peer.behaviours.refuseResponseFormat = true;
    const before = peer.requests.length;
    try {
      const model = resilientModel(base(), {
        mode: "interactive",
        breaker: new Breaker(),
        policy: { budgetMs: 10_000 },
      });
      const err = await Promise.resolve(
        model.doGenerate({
          prompt: [{ role: "user", content: [{ type: "text", text: "x" }] }],
          responseFormat: { type: "json" },
        }),
      ).catch((e: unknown) => e);
      expect(APICallError.isInstance(err) && err.statusCode).toBe(400);
      expect(peer.requests.slice(before).map((r) => r.outcome)).toEqual(["400"]);
    } finally {
      peer.behaviours.refuseResponseFormat = false;
    }
  });

  it("cuts a request that is accepted and never answered, then retries", async () => {
    const before = peer.requests.length;
    peer.failNext(1, { stall: true });
    const model = resilientModel(base(), {
      mode: "interactive",
      breaker: new Breaker(),
      policy: { budgetMs: 10_000, timeoutMs: 400, answerTimeoutMs: 400 },
    });
    const started = Date.now();
    const { text } = await say(model);
    expect(text).toBe(GREETING_TEXT);
    // The stalled request never answers: only the 400 ms cut ends it before the test's own timeout.
    expect(Date.now() - started).toBeLessThan(30_000);
    expect(peer.requests.slice(before).map((r) => r.outcome)).toEqual(["stall", "ok"]);
  });

  it("cuts a stream that sent its headers and then nothing (the turn fails instead of hanging)", async () => {
    peer.failNext(1, { stallAfterHeaders: true });
    const model = resilientModel(base(), {
      mode: "interactive",
      breaker: new Breaker(),
      policy: { budgetMs: 10_000, timeoutMs: 400, answerTimeoutMs: 400 },
    });
    const started = Date.now();
    let error: unknown = null;
    const result = streamText({ model, prompt: "Hi", maxRetries: 0, onError: ({ error: e }) => void (error = e) });
    try {
      for await (const part of result.fullStream) if (part.type === "error") error = part.error;
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(ModelTimeoutError);
    expect(Date.now() - started).toBeLessThan(30_000);
  });

  it("a caller's abort still reaches a stream that is being read (lease lost mid-turn)", async () => {
    peer.failNext(1, { stallAfterHeaders: true });
    const before = peer.requests.length;
    // Timeouts far past the bound below: only the caller's abort can end the stream in time.
    const model = resilientModel(base(), {
      mode: "interactive",
      breaker: new Breaker(),
      policy: { budgetMs: 120_000, timeoutMs: 120_000, answerTimeoutMs: 120_000 },
    });
    const caller = new AbortController();
    const started = Date.now();
    const { stream } = await model.doStream({
      prompt: [{ role: "user", content: [{ type: "text", text: "Hi" }] }],
      abortSignal: caller.signal,
    });
    await peer.waitForRequests(before + 1);
    caller.abort(new Error("lease lost"));
    const reader = stream.getReader();
    // The provider's own "stream-start" part may come first; then the stream must end, not hang.
    let ended = "";
    while (!ended) {
      ended = await reader.read().then(
        (r) => (r.done ? "closed" : ""),
        () => "errored",
      );
    }
    expect(ended).toBe("errored");
    expect(Date.now() - started).toBeLessThan(30_000);
  });

  it("background calls hand the wait back instead of sleeping", async () => {
    peer.failNext(1, { status: 503 });
    const model = resilientModel(base(), { mode: "background", breaker: new Breaker() });
    const err = await say(model).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ProviderWaitError);
    peer.failNext(1, { status: 429, retryAfter: "Wed, 21 Oct 2099 07:28:00 GMT" });
    const dated = await say(model).catch((e: unknown) => e);
    expect((dated as ProviderWaitError).retryAfterMs).toBe(3_600_000);
  });

  it("the breaker opens after repeated failures, stops sending, and closes on recovery", async () => {
    const breaker = new Breaker({ threshold: 2, cooldownMs: 300 });
    const model = resilientModel(base(), { mode: "background", breaker });
    peer.failNext(2, { status: 502 });
    const before = peer.requests.length;
    for (let i = 0; i < 2; i++) expect(await say(model).catch((e: unknown) => e)).toBeInstanceOf(ProviderWaitError);
    expect(breaker.state).toBe("open");
    const refused = await say(model).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(ProviderWaitError);
    expect((refused as ProviderWaitError).retryAfterMs).toBeGreaterThan(0);
    expect(peer.requests.length - before).toBe(2);
    await waitFor(async () => breaker.state === "half_open", 5_000, "breaker cooldown");
    const { text } = await say(model);
    expect(text).toBe(GREETING_TEXT);
    expect(breaker.state).toBe("closed");
    expect(peer.requests.length - before).toBe(3);
  });

  it("reports each answer's usage, streamed (include_usage) and not", async () => {
    const seen: TokenUsage[] = [];
    const model = resilientModel(base(), {
      mode: "interactive",
      breaker: new Breaker(),
      onUsage: (u) => void seen.push(u),
    });
    const before = peer.requests.length;
    await say(model);
    const result = streamText({ model, prompt: "Hi there", maxRetries: 0 });
    await result.consumeStream();
    const total = await result.totalUsage;
    expect(peer.requests.at(-1)?.streamOptions).toEqual({ include_usage: true });
    expect(peer.requests.length - before).toBe(2);
    expect(seen).toHaveLength(2);
    expect(seen[1]).toEqual({ inputTokens: total.inputTokens, outputTokens: total.outputTokens, costUsd: null });
    expect(seen.every((u) => u.inputTokens > 0 && u.outputTokens > 0)).toBe(true);
  });
});
