import { afterEach, describe, expect, it } from "vitest";
import { modelToolsEnabled, providerProfile } from "./provider-profile";

const VARS = ["HERALD_MODEL_PROVIDER", "OPENAI_BASE_URL", "OPENAI_API_KEY", "HERALD_MODEL_TOOLS"];
const set = (vars: Record<string, string>) => Object.assign(process.env, vars);

describe("providerProfile", () => {
  afterEach(() => {
    for (const v of VARS) delete process.env[v];
  });

  it("is the offline model with nothing configured", () => {
    expect(providerProfile()).toBeNull();
  });

  it("takes each provider's usual local address when no base URL is given", () => {
    const urls = (["openai", "ollama", "vllm", "llamacpp"] as const).map((p) => {
      set({ HERALD_MODEL_PROVIDER: p });
      return providerProfile()?.baseURL;
    });
    expect(urls).toEqual([
      "https://api.openai.com/v1",
      "http://127.0.0.1:11434/v1",
      "http://127.0.0.1:8000/v1",
      "http://127.0.0.1:8080/v1",
    ]);
  });

  it("guesses openai for api.openai.com or a bare key, openai-compatible (no assumed features) for another URL", () => {
    set({ OPENAI_API_KEY: "sk-x" });
    expect(providerProfile()).toMatchObject({ name: "openai", strictTools: true, includeUsage: true });
    set({ OPENAI_BASE_URL: "http://10.0.0.5:4000/v1" });
    expect(providerProfile()).toEqual({
      name: "openai-compatible",
      baseURL: "http://10.0.0.5:4000/v1",
      includeUsage: false,
      strictTools: false,
      structuredOutputs: false,
    });
    set({ HERALD_MODEL_PROVIDER: "vllm" });
    expect(providerProfile()).toMatchObject({
      name: "vllm",
      baseURL: "http://10.0.0.5:4000/v1",
      includeUsage: true,
      strictTools: false,
    });
  });

  it("refuses openai-compatible without a URL, naming what is missing", () => {
    set({ HERALD_MODEL_PROVIDER: "openai-compatible" });
    expect(() => providerProfile()).toThrow(/needs OPENAI_BASE_URL/);
    set({ HERALD_MODEL_PROVIDER: "mistral" });
    expect(() => providerProfile()).toThrow(/HERALD_MODEL_PROVIDER/);
  });

  it("tools are on unless switched off", () => {
    expect(modelToolsEnabled()).toBe(true);
    set({ HERALD_MODEL_TOOLS: "off" });
    expect(modelToolsEnabled()).toBe(false);
  });
});
