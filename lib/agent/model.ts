import { env } from "@/lib/config/env";
import type { LanguageModelV3 } from "@ai-sdk/provider";
import { createOpenAICompatible } from "@ai-sdk/openai-compatible";
import { createOfflineModel } from "./offline-model";

/**
 * The offline model unless an OpenAI-compatible endpoint is configured
 * (OpenAI, Ollama, vLLM, llama.cpp server all speak it).
 */
export function getModel(): LanguageModelV3 {
  const baseURL = env("OPENAI_BASE_URL");
  const apiKey = env("OPENAI_API_KEY");
  if (!baseURL && !apiKey) return createOfflineModel();
  const provider = createOpenAICompatible({
    name: "openai-compatible",
    baseURL: baseURL ?? "https://api.openai.com/v1",
    apiKey,
  });
  return provider.chatModel(env("HERALD_MODEL"));
}

