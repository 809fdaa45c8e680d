import { env, EnvError } from "@/lib/config/env";

/**
 * What Herald assumes about the model endpoint. Every profile speaks the
 * OpenAI chat completions API; they differ in the default base URL and in the
 * request features the server is known to accept (docs/operations.md lists
 * the server flags each one needs).
 */
export type ProviderName = "openai" | "ollama" | "vllm" | "llamacpp" | "openai-compatible";

export interface ProviderProfile {
  name: ProviderName;
  baseURL: string;
  /** Sends `stream_options.include_usage`, so a stream ends with a usage chunk. */
  includeUsage: boolean;
  /** Offers tools with `strict: true` (constrained decoding of the arguments). */
  strictTools: boolean;
  /** Accepts `response_format: json_schema`. */
  structuredOutputs: boolean;
}

const PROFILES: Record<ProviderName, Omit<ProviderProfile, "name" | "baseURL"> & { defaultBaseURL: string | null }> = {
  openai: {
    defaultBaseURL: "https://api.openai.com/v1",
    includeUsage: true,
    strictTools: true,
    structuredOutputs: true,
  },
  // Ollama ≥ 0.5 and current vLLM / llama-server answer include_usage and json_schema; strict tools are ignored
  // at best, so they are not claimed.
  ollama: {
    defaultBaseURL: "http://127.0.0.1:11434/v1",
    includeUsage: true,
    strictTools: false,
    structuredOutputs: true,
  },
  vllm: { defaultBaseURL: "http://127.0.0.1:8000/v1", includeUsage: true, strictTools: false, structuredOutputs: true },
  llamacpp: {
    defaultBaseURL: "http://127.0.0.1:8080/v1",
    includeUsage: true,
    strictTools: false,
    structuredOutputs: true,
  },
  // An unknown server: only what every OpenAI-compatible server takes (usage still arrives in non-streamed answers).
  "openai-compatible": { defaultBaseURL: null, includeUsage: false, strictTools: false, structuredOutputs: false },
};

/** The configured endpoint's profile, or null for the built-in offline model. */
export function providerProfile(): ProviderProfile | null {
  const given = env("HERALD_MODEL_PROVIDER");
  const baseURL = env("OPENAI_BASE_URL");
  if (!given && !baseURL && !env("OPENAI_API_KEY")) return null;
  const name: ProviderName =
    given ?? (!baseURL || new URL(baseURL).hostname === "api.openai.com" ? "openai" : "openai-compatible");
  const { defaultBaseURL, ...features } = PROFILES[name];
  const url = baseURL ?? defaultBaseURL;
  if (!url) throw new EnvError(`HERALD_MODEL_PROVIDER=${name} needs OPENAI_BASE_URL (the server's /v1 URL)`);
  return { name, baseURL: url, ...features };
}

/** Tools are offered to the model unless the operator switched them off (a server without a tool-call parser). */
export function modelToolsEnabled(): boolean {
  return env("HERALD_MODEL_TOOLS") === "on";
}
