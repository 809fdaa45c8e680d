import { afterEach, describe, expect, it, vi } from "vitest";
import * as logModule from "@/lib/util/log";
import { budgetOf, inputResponseOf, pendingUpdatesOf } from "./columns";

afterEach(() => vi.restoreAllMocks());

function spyWarn() {
  const warn = vi.fn();
  vi.spyOn(logModule, "log").mockReturnValue({ warn } as never);
  return warn;
}

describe("the task's JSON columns are read through their schemas", () => {
  it("pendingUpdates: a list of strings, else none; an unreadable one is logged", () => {
    const warn = spyWarn();
    expect(pendingUpdatesOf({ id: "t", pendingUpdates: ["a", "b"] })).toEqual(["a", "b"]);
    expect(pendingUpdatesOf({ id: "t", pendingUpdates: null })).toEqual([]);
    expect(warn).not.toHaveBeenCalled();
    expect(pendingUpdatesOf({ id: "t", pendingUpdates: ["a", 3] })).toEqual([]);
    expect(warn).toHaveBeenCalledWith({ taskId: "t" }, expect.stringContaining("task.pendingUpdates"));
  });

  it("inputResponse: the stored answer, else empty; an unreadable one is logged", () => {
    const warn = spyWarn();
    expect(inputResponseOf({ id: "t", inputResponse: { response: "Asia" } })).toBe("Asia");
    expect(inputResponseOf({ id: "t", inputResponse: null })).toBe("");
    expect(warn).not.toHaveBeenCalled();
    expect(inputResponseOf({ id: "t", inputResponse: { response: { nested: true } } })).toBe("");
    expect(warn).toHaveBeenCalledWith({ taskId: "t" }, expect.stringContaining("task.inputResponse"));
  });

  it("budget: an unreadable one is logged and read as no budget", () => {
    const warn = spyWarn();
    expect(budgetOf({ budget: { maxModelRequests: 3 } })).toEqual({ maxModelRequests: 3 });
    expect(budgetOf({ id: "t", budget: { maxTokens: "many" } })).toEqual({});
    expect(warn).toHaveBeenCalledOnce();
  });
});
