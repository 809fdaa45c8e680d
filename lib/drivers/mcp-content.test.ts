import { describe, expect, it } from "vitest";
import { boundBody } from "./mcp-content";
import { cpuMs } from "@/tests/adversarial-text";

const LIMIT = 256 * 1024;

describe("boundBody", () => {
  it("keeps a body within the limit as it is", () => {
    expect(boundBody("short answer")).toBe("short answer");
  });

  it("cuts a long body to the limit on a character boundary and says so", () => {
    const out = boundBody(`a${"é".repeat(LIMIT)}`); // the cut falls inside a two-byte character
    expect(Buffer.byteLength(out)).toBeLessThanOrEqual(LIMIT);
    expect(out).not.toContain("\uFFFD");
    expect(out).toMatch(/truncated: the remote result exceeded 256 KiB/);
  });

  it("is linear in a run of U+FFFD chosen by the remote", () => {
    // /\uFFFD+$/ retried from each U+FFFD of a run that does not end the preview: ~5 s here.
    let out = "";
    expect(cpuMs(() => (out = boundBody(`${"\uFFFD".repeat(80_000)}${"x".repeat(100_000)}`)))).toBeLessThan(500);
    expect(out.startsWith("\uFFFD")).toBe(true);
    expect(Buffer.byteLength(out)).toBeLessThanOrEqual(LIMIT);
  });
});
