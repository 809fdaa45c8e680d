import { describe, expect, it } from "vitest";
import { scrapeAccess } from "./token";

describe("scrapeAccess", () => {
  it("is off when no token is configured, whatever the request sends", () => {
    expect(scrapeAccess("Bearer anything", undefined)).toBe("off");
    expect(scrapeAccess(null, "")).toBe("off");
    expect(scrapeAccess("Bearer ", "  \n")).toBe("off");
  });

  it("accepts exactly the configured bearer token", () => {
    expect(scrapeAccess("Bearer s3cret-token", "s3cret-token")).toBe("ok");
    expect(scrapeAccess("bearer s3cret-token", "s3cret-token\n")).toBe("ok");
  });

  it("denies a missing, wrong, partial or differently-schemed credential", () => {
    const token = "s3cret-token";
    for (const header of [
      null,
      "",
      "Bearer",
      "Bearer ",
      "Bearer s3cret",
      "Bearer s3cret-token-and-more",
      "Bearer S3CRET-TOKEN",
      "Basic s3cret-token",
      "s3cret-token",
      "Bearer s3cret-token extra",
    ]) {
      expect(scrapeAccess(header, token), String(header)).toBe("denied");
    }
  });
});
