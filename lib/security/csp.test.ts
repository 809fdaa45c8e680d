import { describe, expect, it } from "vitest";
import { getScriptNonceFromHeader } from "next/dist/server/app-render/get-script-nonce-from-header";
import { contentSecurityPolicy, newNonce } from "./csp";

const directives = (csp: string) => new Map(csp.split("; ").map((d) => [d.split(" ")[0], d.split(" ").slice(1)]));

describe("contentSecurityPolicy", () => {
  it("hands Next a nonce it can parse, fresh each time", () => {
    const a = newNonce();
    expect(a).not.toBe(newNonce());
    expect(getScriptNonceFromHeader(contentSecurityPolicy(a))).toBe(a);
  });

  it("allows no remote origin and no framing; eval only in development", () => {
    const prod = directives(contentSecurityPolicy("n0nce"));
    expect(prod.get("script-src")).toEqual(["'self'", "'nonce-n0nce'", "'strict-dynamic'"]);
    expect(prod.get("img-src")).toEqual(["'self'", "data:", "blob:"]);
    expect(prod.get("frame-ancestors")).toEqual(["'none'"]);
    expect(prod.get("object-src")).toEqual(["'none'"]);
    for (const [, sources] of prod)
      for (const s of sources) expect(s).not.toMatch(/^(https?:|\*|[a-z0-9.-]+\.[a-z]+)/i);
    expect(directives(contentSecurityPolicy("n0nce", { dev: true })).get("script-src")).toContain("'unsafe-eval'");
  });
});
