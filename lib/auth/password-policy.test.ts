import { describe, expect, it } from "vitest";
import { passwordProblem } from "./password-policy";

describe("passwordProblem", () => {
  it("refuses the most common passwords whatever their case", () => {
    expect(passwordProblem("12345678")).toBe("too_common");
    expect(passwordProblem("Password1")).toBe("too_common");
    expect(passwordProblem("qwertyuiop")).toBe("too_common");
  });

  it("refuses short and overlong passwords", () => {
    expect(passwordProblem("a1b2c3")).toBe("too_short");
    expect(passwordProblem("x".repeat(129))).toBe("too_long");
  });

  it("accepts an uncommon password of a good length", () => {
    expect(passwordProblem("violet-harbour-73-lantern")).toBeNull();
  });
});
