import { describe, expect, it } from "vitest";
import type { SearchProvider } from "@/lib/research/search-types";
import { gatherSources } from "./research-read";

/** A provider that counts its searches and finds pages nobody can read (nothing listens on port 9). */
function countingProvider(): SearchProvider & { searches: number } {
  const p = {
    name: "counting",
    searches: 0,
    async search() {
      p.searches++;
      return [{ url: "http://127.0.0.1:9/a", title: "A", snippet: "otters" }];
    },
  };
  return p;
}

describe("gatherSources and the account's page allowance", () => {
  it("an account that read its pages for the hour searches and reads nothing more", async () => {
    const provider = countingProvider();
    const r = await gatherSources({ queries: ["otters"], terms: ["otters"], known: [], searchesSoFar: 0, sectionsLeft: 1, accountPagesLeft: 0, signal: new AbortController().signal, provider });
    expect(r).toEqual({ pages: [], searches: 0, status: "budget" });
    expect(provider.searches).toBe(0);
  });

  it("with allowance left it searches as before", async () => {
    const provider = countingProvider();
    const r = await gatherSources({ queries: ["otters"], terms: ["otters"], known: [], searchesSoFar: 0, sectionsLeft: 1, accountPagesLeft: 2, signal: new AbortController().signal, provider });
    expect(provider.searches).toBe(1);
    expect(r.searches).toBe(1);
  });
});
