import { afterEach, describe, expect, it } from "vitest";
import { installTestHooksFromEnv, setTestHooks, testHooks } from "./test-hooks";

describe("test hooks", () => {
  afterEach(() => {
    setTestHooks({});
    delete process.env.HERALD_TEST_AGENT_PAUSE_AFTER_CREATE_MS;
  });

  it("are no-ops unless a test sets them", async () => {
    expect(testHooks()).toEqual({});
    const seen: string[] = [];
    setTestHooks({ afterRemoteCreate: async (id) => void seen.push(id) });
    await testHooks().afterRemoteCreate?.("t1");
    expect(seen).toEqual(["t1"]);
  });

  it("a worker process reads the crash tests' pauses from env once, at its start", () => {
    process.env.HERALD_TEST_AGENT_PAUSE_AFTER_CREATE_MS = "5";
    expect(testHooks().afterRemoteCreate).toBeUndefined();
    installTestHooksFromEnv();
    expect(typeof testHooks().afterRemoteCreate).toBe("function");
    expect(testHooks().afterEmailSend).toBeUndefined();
  });
});
