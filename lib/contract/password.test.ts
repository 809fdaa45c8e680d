import { describe, expect, it } from "vitest";
import { safeNextPath } from "./password";

describe("safeNextPath", () => {
  it("keeps same-origin paths with their query", () => {
    expect(safeNextPath("/c/abc")).toBe("/c/abc");
    expect(safeNextPath("/settings?x=1#y")).toBe("/settings?x=1#y");
  });

  it("refuses anything that could leave the origin or loop", () => {
    for (const bad of [
      "//evil.test",
      "/\\evil.test",
      "https://evil.test",
      "javascript:alert(1)",
      "c/abc",
      "/\t/evil.test",
      "/sign-in?next=/",
      "/api/events",
      "",
      null,
      undefined,
      `/${"a".repeat(600)}`,
    ]) {
      expect(safeNextPath(bad)).toBe("/");
    }
  });
});
