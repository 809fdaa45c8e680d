import { describe, expect, it } from "vitest";
import { createFrame } from "@/lib/text/frame";
import { coarseTime, systemPrompt } from "./prompt";

describe("systemPrompt", () => {
  it("keeps a long prefix identical across prompts, turns and times: a provider's prefix cache can hit", () => {
    const a = systemPrompt(new Date("2026-11-30T10:00:01.123Z"), createFrame(), {
      tasks: "Background tasks in this conversation: none.",
    });
    const b = systemPrompt(new Date("2026-11-30T17:42:59.999Z"), createFrame(), {
      readOnly: true,
      tasks: "Background tasks: [x]",
    });
    let common = 0;
    while (common < a.length && a[common] === b[common]) common++;
    expect(common).toBeGreaterThan(400);
    expect(a.slice(0, common)).not.toMatch(/[0-9a-f]{16}|2026/);
  });

  it("asks for task titles that name the topic, without the request's delivery phrase", () => {
    const p = systemPrompt(new Date(), createFrame());
    expect(p).toContain(
      "A task's title names its topic in a few words, in the user's language, without delivery times or instructions",
    );
  });

  it("ends with the time to the minute, no seconds or milliseconds", () => {
    const p = systemPrompt(new Date("2026-11-30T16:55:41.517Z"), createFrame());
    expect(p.split("\n").at(-1)).toBe("Current time: 2026-11-30 16:55 UTC.");
    expect(p).not.toMatch(/41\.517|16:55:41/);
    expect(coarseTime(new Date("2026-01-02T03:04:05.006Z"))).toBe("2026-01-02 03:04 UTC");
  });

  it("gives the user's own clock when the account has a zone, after the UTC time", () => {
    const p = systemPrompt(new Date("2026-11-30T16:55:41.517Z"), createFrame(), { timeZone: "Asia/Shanghai" });
    expect(p.split("\n").slice(-2)).toEqual([
      "Current time: 2026-11-30 16:55 UTC.",
      "The user's time zone is Asia/Shanghai (their clock reads Tue, Dec 1, 12:55 AM); write every time for them in it, without a zone name.",
    ]);
  });

  it("names the prompt's nonce, the turn's limits and the task list after the stable part", () => {
    const frame = createFrame();
    const p = systemPrompt(new Date(), frame, { readOnly: true, tasks: "TASKS-HERE" });
    expect(p.indexOf(frame.rule)).toBeGreaterThan(p.indexOf("Answer questions about tasks"));
    expect(p).toContain("you can only look tasks up");
    expect(p.indexOf("TASKS-HERE")).toBeLessThan(p.indexOf("Current time:"));
    expect(systemPrompt(new Date(), frame, { noTools: true })).toContain(
      "cannot start, look up or change background tasks",
    );
  });
});
