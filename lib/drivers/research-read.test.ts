import { afterEach, describe, expect, it, vi } from "vitest";
import type { SearchProvider, SearchResult } from "@/lib/research/search-types";
import { startWebStub, type WebStub } from "@/tests/web-stub";
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
    const r = await gatherSources({
      queries: ["otters"],
      terms: ["otters"],
      known: [],
      searchesSoFar: 0,
      sectionsLeft: 1,
      accountPagesLeft: 0,
      signal: new AbortController().signal,
      provider,
    });
    expect(r).toEqual({ pages: [], searches: 0, status: "budget" });
    expect(provider.searches).toBe(0);
  });

  it("with allowance left it searches as before", async () => {
    const provider = countingProvider();
    const r = await gatherSources({
      queries: ["otters"],
      terms: ["otters"],
      known: [],
      searchesSoFar: 0,
      sectionsLeft: 1,
      accountPagesLeft: 2,
      signal: new AbortController().signal,
      provider,
    });
    expect(provider.searches).toBe(1);
    expect(r.searches).toBe(1);
  });
});

describe("robots.txt across a task's steps", () => {
  const stubs: WebStub[] = [];
  afterEach(async () => {
    vi.unstubAllEnvs();
    await Promise.all(stubs.splice(0).map((s) => s.close()));
  });

  it("two steps reading pages on one origin ask for its robots.txt once", async () => {
    vi.stubEnv("HERALD_FETCH_ALLOW_PRIVATE", "1");
    const stub = await startWebStub((req, res) => {
      res.writeHead(200, { "content-type": "text/plain" });
      res.end(
        req.path === "/robots.txt"
          ? "User-agent: *\nDisallow: /private\n"
          : `Otters page ${req.path}: otters float on their backs.`,
      );
    });
    stubs.push(stub);
    const resultsFor = (query: string): SearchResult[] => [
      { url: `${stub.origin}/${query}`, title: `Otters ${query}`, snippet: "otters" },
    ];
    const provider: SearchProvider = { name: "loopback", search: async (query) => resultsFor(query) };
    const step = (query: string, known: { n: number; url: string }[]) =>
      gatherSources({
        queries: [query],
        terms: ["otters"],
        known: known.map((k) => ({ ...k, finalUrl: k.url, title: "", site: "" })),
        searchesSoFar: 0,
        sectionsLeft: 1,
        signal: new AbortController().signal,
        provider,
      });
    const first = await step("first", []);
    expect(first.pages.map((p) => p.finalUrl)).toEqual([`${stub.origin}/first`]);
    const second = await step("second", [{ n: 1, url: `${stub.origin}/first` }]);
    expect(second.pages.map((p) => p.finalUrl)).toEqual([`${stub.origin}/second`]);
    expect(stub.requests.map((r) => r.path)).toEqual(["/robots.txt", "/first", "/second"]);
  });
});
