import { describe, expect, it } from "vitest";
import { CrashHistory, exitWords } from "./supervisor";

const policy = { limit: 4, windowMs: 10_000, baseDelayMs: 100, maxDelayMs: 350 };

describe("restart policy", () => {
  it("backs off, doubling per recent crash up to the cap", () => {
    const h = new CrashHistory(policy);
    expect(h.record(0)).toEqual({ restart: true, recent: 1, delayMs: 100 });
    expect(h.record(1_000)).toEqual({ restart: true, recent: 2, delayMs: 200 });
    expect(h.record(2_000)).toEqual({ restart: true, recent: 3, delayMs: 350 });
  });

  it("gives up on a child that crash-loops within the window", () => {
    const h = new CrashHistory(policy);
    for (let i = 0; i < 3; i++) expect(h.record(i * 100).restart).toBe(true);
    expect(h.record(400)).toEqual({ restart: false, recent: 4 });
  });

  it("forgets crashes older than the window: a child that crashes now and then is always restarted", () => {
    const h = new CrashHistory(policy);
    for (let i = 0; i < 20; i++) expect(h.record(i * 11_000)).toEqual({ restart: true, recent: 1, delayMs: 100 });
  });

  it("words an exit", () => {
    expect(exitWords(1, null)).toBe("exit code 1");
    expect(exitWords(null, "SIGKILL")).toBe("killed by SIGKILL");
  });
});
