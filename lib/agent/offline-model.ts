import { env } from "@/lib/config/env";
import type {
  LanguageModelV3,
  LanguageModelV3CallOptions,
  LanguageModelV3Content,
  LanguageModelV3StreamPart,
  LanguageModelV3Usage,
} from "@ai-sdk/provider";
import { sleep } from "@/lib/util/sleep";
import { planOfflineTurn } from "./offline/brain";
import { routeOptionsFrom } from "./offline/route-agent";
import { TOOLS } from "./tool-names";

/**
 * Herald's built-in model: deterministic, no network, the same provider
 * interface as any AI SDK model. What it says is decided by planOfflineTurn
 * from the prompt alone, so the same history always yields the same answer.
 */
export interface OfflineModelOptions {
  /** Pause between streamed chunks; makes streaming visible and crash tests possible. */
  chunkDelayMs?: number;
}

const usage = (input: number, output: number): LanguageModelV3Usage => ({
  inputTokens: { total: input, noCache: input, cacheRead: 0, cacheWrite: 0 },
  outputTokens: { total: output, text: output, reasoning: 0 },
});

/** Word-sized chunks, whitespace kept, so the concatenation is exactly the text. */
export function chunkText(text: string): string[] {
  return text.match(/\S+\s*|\s+/g) ?? [];
}

export function createOfflineModel(opts: OfflineModelOptions = {}): LanguageModelV3 {
  const delay = opts.chunkDelayMs ?? env("HERALD_OFFLINE_CHUNK_MS");

  function contentFor(options: LanguageModelV3CallOptions): { content: LanguageModelV3Content[]; size: number } {
    const tools = options.tools ?? [];
    const start = tools.find((t) => t.name === TOOLS.start && t.type === "function");
    const routes = start && "inputSchema" in start ? routeOptionsFrom(start.inputSchema) : [];
    const turn = planOfflineTurn(
      options.prompt,
      tools.map((t) => t.name),
      routes,
    );
    if (turn.type === "tool-call") {
      return {
        content: [
          {
            type: "tool-call",
            toolCallId: turn.toolCallId,
            toolName: turn.toolName,
            input: JSON.stringify(turn.input),
          },
        ],
        size: 1,
      };
    }
    const content: LanguageModelV3Content[] = [{ type: "text", text: turn.text }];
    if (turn.alsoCall) {
      const c = turn.alsoCall;
      content.push({
        type: "tool-call",
        toolCallId: c.toolCallId,
        toolName: c.toolName,
        input: JSON.stringify(c.input),
      });
    }
    return { content, size: turn.text.length };
  }

  return {
    specificationVersion: "v3",
    provider: "herald-offline",
    modelId: "offline-1",
    supportedUrls: {},

    async doGenerate(options) {
      const { content, size } = contentFor(options);
      // Takes as long as streaming the same text would, so slow-model tests behave alike either way.
      const text = content.map((c) => (c.type === "text" ? c.text : "")).join("");
      if (delay > 0) await sleep(delay * Math.max(1, chunkText(text).length), options.abortSignal);
      if (options.abortSignal?.aborted) throw options.abortSignal.reason ?? new Error("aborted");
      const toolCall = content.some((c) => c.type === "tool-call");
      return {
        content,
        finishReason: { unified: toolCall ? "tool-calls" : "stop", raw: undefined },
        usage: usage(options.prompt.length, size),
        warnings: [],
      };
    },

    async doStream(options) {
      const { content, size } = contentFor(options);
      const signal = options.abortSignal;
      const stream = new ReadableStream<LanguageModelV3StreamPart>({
        async start(controller) {
          try {
            controller.enqueue({ type: "stream-start", warnings: [] });
            let toolCall = false;
            for (const part of content) {
              if (part.type === "text") {
                controller.enqueue({ type: "text-start", id: "t0" });
                for (const chunk of chunkText(part.text)) {
                  if (delay > 0) await sleep(delay, signal);
                  controller.enqueue({ type: "text-delta", id: "t0", delta: chunk });
                }
                controller.enqueue({ type: "text-end", id: "t0" });
              } else if (part.type === "tool-call") {
                toolCall = true;
                if (delay > 0) await sleep(delay, signal);
                controller.enqueue(part);
              }
            }
            controller.enqueue({
              type: "finish",
              usage: usage(options.prompt.length, size),
              finishReason: { unified: toolCall ? "tool-calls" : "stop", raw: undefined },
            });
            controller.close();
          } catch (err) {
            controller.error(err);
          }
        },
      });
      return { stream };
    },
  };
}
