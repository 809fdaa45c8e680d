import { describe, expect, it } from "vitest";
import { budgetExceeded } from "./due-loop";

const started = new Date("2026-11-30T12:00:00Z");
const task = (
  budget: unknown,
  spent: { modelRequests?: number; inputTokens?: number; outputTokens?: number } = {},
) => ({
  budget: budget as never,
  modelRequests: spent.modelRequests ?? 0,
  inputTokens: spent.inputTokens ?? 0,
  outputTokens: spent.outputTokens ?? 0,
  startedAt: started,
  createdAt: started,
});

describe("overtime budget", () => {
  it("counts tokens (input + output) as well as requests and wall time", () => {
    const now = new Date(started.getTime() + 60_000);
    expect(budgetExceeded(task({ maxTokens: 1_000 }, { inputTokens: 700, outputTokens: 299 }), now)).toBe(false);
    expect(budgetExceeded(task({ maxTokens: 1_000 }, { inputTokens: 700, outputTokens: 300 }), now)).toBe(true);
    expect(
      budgetExceeded(task({ maxModelRequests: 3, maxTokens: 10_000 }, { modelRequests: 3, inputTokens: 5 }), now),
    ).toBe(true);
    expect(budgetExceeded(task({ maxWallSeconds: 60, maxTokens: 10_000 }), now)).toBe(true);
    expect(budgetExceeded(task(null, { inputTokens: 1e9 }), now)).toBe(false);
  });
});
