import {
  InvalidResponseDataError,
  type LanguageModelV3,
  type LanguageModelV3CallOptions,
  type LanguageModelV3StreamPart,
} from "@ai-sdk/provider";
import { createOpenAICompatible } from "@ai-sdk/openai-compatible";
import { wrapLanguageModel } from "ai";
import { env } from "@/lib/config/env";
import { createOfflineModel } from "./offline-model";
import { alternateRoles } from "./alternate-roles";
import { providerProfile, type ProviderProfile } from "./provider-profile";
import { strictToolSchema } from "./strict-schema";

/**
 * The offline model unless a model endpoint is configured (HERALD_MODEL_PROVIDER
 * or OPENAI_BASE_URL / OPENAI_API_KEY): OpenAI, Ollama, vLLM, llama.cpp's
 * server and other OpenAI-compatible servers, each with its profile.
 */
export function getModel(): LanguageModelV3 {
  const profile = providerProfile();
  if (!profile) return createOfflineModel();
  const provider = createOpenAICompatible({
    name: profile.name,
    baseURL: profile.baseURL,
    apiKey: env("OPENAI_API_KEY"),
    includeUsage: profile.includeUsage,
    supportsStructuredOutputs: profile.structuredOutputs,
  });
  return wrapLanguageModel({
    model: provider.chatModel(env("HERALD_MODEL")),
    middleware: {
      specificationVersion: "v3",
      transformParams: async ({ params }) => conformRequest(params, profile),
      wrapStream: async ({ doStream }) => {
        const result = await doStream();
        return { ...result, stream: result.stream.pipeThrough(acceptMissingFinishReason()) };
      },
    },
  });
}

/**
 * Some servers end a complete stream ([DONE] or a clean close) without ever
 * sending a finish_reason; the SDK then reports an error after the text and
 * tool calls it already passed on, and the turn would be lost. Such an end is
 * an end: "tool-calls" when calls arrived (so they run), else "stop". A
 * connection cut mid-stream is not this case: it errors the stream itself.
 */
export function acceptMissingFinishReason(): TransformStream<LanguageModelV3StreamPart, LanguageModelV3StreamPart> {
  let calls = false;
  let missing = false;
  return new TransformStream({
    transform(part, controller) {
      if (part.type === "tool-call") calls = true;
      if (
        part.type === "error" &&
        InvalidResponseDataError.isInstance(part.error) &&
        /without a finish reason/.test(part.error.message)
      ) {
        missing = true;
        return;
      }
      if (part.type === "finish" && missing) {
        controller.enqueue({ ...part, finishReason: { unified: calls ? "tool-calls" : "stop", raw: undefined } });
        return;
      }
      controller.enqueue(part);
    },
  });
}

/**
 * Every request to a real endpoint, in the shape the strictest servers accept:
 * roles strictly alternating (whatever the stored history or the tool loop
 * produced), tool and response schemas in the strict-mode subset.
 */
export function conformRequest(
  params: LanguageModelV3CallOptions,
  profile: Pick<ProviderProfile, "strictTools">,
): LanguageModelV3CallOptions {
  return {
    ...params,
    prompt: alternateRoles(params.prompt),
    // Structured output (research plans) goes through the same subset: OpenAI's strict json_schema refuses the rest.
    responseFormat:
      params.responseFormat?.type === "json" && params.responseFormat.schema?.type === "object"
        ? { ...params.responseFormat, schema: strictToolSchema(params.responseFormat.schema) }
        : params.responseFormat,
    tools: params.tools?.map((t) =>
      t.type === "function"
        ? { ...t, inputSchema: strictToolSchema(t.inputSchema), ...(profile.strictTools ? { strict: true } : {}) }
        : t,
    ),
  };
}
