import { afterEach, describe, expect, it, vi } from "vitest";
import * as logModule from "@/lib/util/log";
import { deliveryFromMessage } from "./trigger-meta";

afterEach(() => vi.restoreAllMocks());

describe("deliveryFromMessage reads the trigger's meta through its schema", () => {
  it("a contract stored with the message is the turn's contract", () => {
    const dueAt = "2030-01-01T09:00:00.000Z";
    expect(
      deliveryFromMessage({
        meta: { delivery: { mode: "by", dueAt, reportIfUnfinished: true }, workWith: "research" },
      }),
    ).toEqual({ mode: "by", dueAt, reportIfUnfinished: true });
    expect(deliveryFromMessage({ meta: null })).toBeUndefined();
    expect(deliveryFromMessage({ meta: { delivery: null } })).toBeUndefined();
  });

  it("an unreadable meta is logged and read as no contract", () => {
    const warn = vi.fn();
    vi.spyOn(logModule, "log").mockReturnValue({ warn } as never);
    expect(deliveryFromMessage({ meta: { delivery: { mode: "by", dueAt: "next week" } } })).toBeUndefined();
    expect(warn).toHaveBeenCalledWith({}, expect.stringContaining("message.meta (user)"));
  });
});
