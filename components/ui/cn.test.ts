import { describe, expect, it } from "vitest";
import { cn } from "./cn";

describe("cn", () => {
  it("joins what is set and skips the rest", () => {
    const on = true as boolean;
    const off = false as boolean;
    expect(cn("a b", on && "c", off && "d", null, undefined, "", "e")).toBe("a b c e");
    expect(cn()).toBe("");
    expect(cn(undefined, "only")).toBe("only");
  });
});
