import { afterEach, describe, expect, it, vi } from "vitest";
import { readFileSync } from "node:fs";
import path from "node:path";
import { checkEnv, env, ENV_SCHEMA, EnvError } from "./env";

afterEach(() => vi.unstubAllEnvs());

describe("configuration", () => {
  it("defaults, parsing, and empty meaning unset", () => {
    vi.stubEnv("HERALD_TASK_LEASE_MS", "");
    expect(env("HERALD_TASK_LEASE_MS")).toBe(15_000);
    vi.stubEnv("HERALD_TASK_LEASE_MS", " 2500 ");
    expect(env("HERALD_TASK_LEASE_MS")).toBe(2500);
    vi.stubEnv("HERALD_LIMITS", "OFF");
    expect(env("HERALD_LIMITS")).toBe("off");
    vi.stubEnv("HERALD_LIMITS", "false");
    expect(env("HERALD_LIMITS")).toBe("off");
    vi.stubEnv("HERALD_ALLOW_SIMULATE", "true");
    expect(env("HERALD_ALLOW_SIMULATE")).toBe("1");
    vi.stubEnv("HERALD_NARRATION", "maybe");
    expect(() => env("HERALD_NARRATION")).toThrow(/^HERALD_NARRATION="maybe"/);
  });

  it("a bad value fails naming the variable, never becomes NaN", () => {
    vi.stubEnv("HERALD_POLL_MS", "2s");
    expect(() => env("HERALD_POLL_MS")).toThrow(EnvError);
    expect(() => env("HERALD_POLL_MS")).toThrow(/^HERALD_POLL_MS="2s"/);
    vi.stubEnv("PORT", "70000");
    vi.stubEnv("HERALD_LIMIT_ACTIVE_TASKS", "0");
    let message = "";
    try {
      checkEnv();
    } catch (err) {
      message = (err as Error).message;
    }
    expect(message).toContain("HERALD_POLL_MS");
    expect(message).toContain("PORT");
    expect(message).toContain("HERALD_LIMIT_ACTIVE_TASKS");
  });

  it("every variable is documented in docs/operations.md", () => {
    const doc = readFileSync(path.resolve(import.meta.dirname, "../../docs/operations.md"), "utf8");
    const missing = Object.keys(ENV_SCHEMA.shape).filter((name) => !doc.includes(name));
    expect(missing).toEqual([]);
  });
});
