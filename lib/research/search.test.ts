import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { lookup } from "node:dns/promises";
import { EnvError } from "@/lib/config/env";
import { Breaker, resetBreakers } from "@/lib/util/breaker";
import { sendJson, startWebStub, type StubRequest, type WebStub } from "@/tests/web-stub";
import { braveProvider } from "./search-brave";
import { searxngProvider } from "./search-searxng";
import { tavilyProvider } from "./search-tavily";
import { pageUrl, wikipediaProvider } from "./search-wikipedia";
import { searchProviderFromEnv, searchWeb } from "./search";
import type { SearchProvider } from "./search-types";

const stubs: WebStub[] = [];
beforeEach(() => resetBreakers());
afterEach(async () => {
  vi.unstubAllEnvs();
  vi.restoreAllMocks();
  await Promise.all(stubs.splice(0).map((s) => s.close()));
});

async function stub(handler: (req: StubRequest, res: import("node:http").ServerResponse) => void) {
  const s = await startWebStub(handler);
  stubs.push(s);
  return s;
}

describe("search providers against their APIs' shapes", () => {
  it("wikipedia: MediaWiki list=search, page URLs from titles, snippets without markup", async () => {
    const api = await stub((_req, res) =>
      sendJson(res, {
        batchcomplete: true,
        query: {
          searchinfo: { totalhits: 2 },
          search: [
            {
              ns: 0,
              title: "Sea otter",
              pageid: 1,
              snippet:
                'The <span class="searchmatch">sea</span> <span class="searchmatch">otter</span> &quot;Enhydra lutris&quot; &amp; kin',
            },
            { ns: 0, title: "AC/DC: Live", pageid: 2, snippet: "x" },
          ],
        },
      }),
    );
    const results = await wikipediaProvider(api.origin).search("sea otter tools", { limit: 5 });
    expect(results).toEqual([
      { url: `${api.origin}/wiki/Sea_otter`, title: "Sea otter", snippet: 'The sea otter "Enhydra lutris" & kin' },
      { url: `${api.origin}/wiki/AC/DC:_Live`, title: "AC/DC: Live", snippet: "x" },
    ]);
    const req = api.requests[0]!;
    expect(req.path).toBe("/w/api.php");
    expect(Object.fromEntries(req.url.searchParams)).toMatchObject({
      action: "query",
      list: "search",
      srsearch: "sea otter tools",
      srlimit: "5",
      format: "json",
    });
    expect(req.headers["user-agent"]).toMatch(/^HeraldResearch\//);
  });

  it("wikipedia: the edition follows the query's language", async () => {
    const seen: string[] = [];
    vi.spyOn(globalThis, "fetch").mockImplementation(async (input) => {
      seen.push(new URL(String(input)).host);
      return new Response(JSON.stringify({ query: { search: [{ title: "海獭", snippet: "" }] } }), {
        headers: { "content-type": "application/json" },
      });
    });
    const zh = await wikipediaProvider().search("海獭 使用 工具", { limit: 3 });
    await wikipediaProvider().search("sea otters", { limit: 3 });
    expect(seen).toEqual(["zh.wikipedia.org", "en.wikipedia.org"]);
    expect(zh[0]!.url).toBe(pageUrl("https://zh.wikipedia.org", "海獭"));
    expect(zh[0]!.url).toBe("https://zh.wikipedia.org/wiki/%E6%B5%B7%E7%8D%AD");
  });

  it("searxng: GET /search?q=…&format=json → results[{url,title,content}]", async () => {
    const api = await stub((_req, res) =>
      sendJson(res, {
        query: "otters",
        results: [
          { url: "https://a.example/otters#top", title: "Otters", content: "About otters", engine: "x" },
          { url: "https://a.example/otters", title: "dup", content: "" },
          { url: "javascript:alert(1)", title: "bad", content: "" },
          { url: "https://b.example/", title: "B", content: "b" },
        ],
      }),
    );
    const results = await searxngProvider(`${api.origin}/searx/`).search("otters", { limit: 10 });
    expect(results).toEqual([
      { url: "https://a.example/otters", title: "Otters", snippet: "About otters" },
      { url: "https://b.example/", title: "B", snippet: "b" },
    ]);
    expect(api.requests[0]!.path).toBe("/searx/search");
    expect(Object.fromEntries(api.requests[0]!.url.searchParams)).toEqual({ q: "otters", format: "json" });
  });

  it("tavily: POST /search with the key as a bearer token → results[{url,title,content}]", async () => {
    const api = await stub((_req, res) =>
      sendJson(res, {
        query: "otters",
        answer: null,
        results: [{ title: "T", url: "https://t.example/", content: "tc", score: 0.9 }],
        response_time: 0.5,
      }),
    );
    const results = await tavilyProvider("tvly-test-key", api.origin).search("otters", { limit: 4 });
    expect(results).toEqual([{ url: "https://t.example/", title: "T", snippet: "tc" }]);
    const req = api.requests[0]!;
    expect([req.method, req.path, req.headers.authorization, req.headers["content-type"]]).toEqual([
      "POST",
      "/search",
      "Bearer tvly-test-key",
      "application/json",
    ]);
    expect(JSON.parse(req.body)).toMatchObject({ query: "otters", max_results: 4, search_depth: "basic" });
  });

  it("brave: GET /res/v1/web/search with X-Subscription-Token → web.results[{url,title,description}]", async () => {
    const api = await stub((_req, res) =>
      sendJson(res, {
        type: "search",
        query: { original: "otters" },
        web: {
          type: "search",
          results: [
            {
              title: "<strong>Otters</strong>",
              url: "https://br.example/o",
              description: "Sea <strong>otters</strong>",
            },
          ],
        },
      }),
    );
    const results = await braveProvider("brave-key", api.origin).search("otters", { limit: 7 });
    expect(results).toEqual([{ url: "https://br.example/o", title: "Otters", snippet: "Sea otters" }]);
    const req = api.requests[0]!;
    expect([req.path, req.headers["x-subscription-token"], req.headers.accept]).toEqual([
      "/res/v1/web/search",
      "brave-key",
      "application/json",
    ]);
    expect(Object.fromEntries(req.url.searchParams)).toEqual({ q: "otters", count: "7" });
  });

  it("the provider comes from HERALD_SEARCH_PROVIDER; one that lacks its URL or key fails naming the variable", () => {
    expect(searchProviderFromEnv().name).toBe("wikipedia");
    vi.stubEnv("HERALD_SEARCH_PROVIDER", "none");
    expect(searchProviderFromEnv().name).toBe("none");
    vi.stubEnv("HERALD_SEARCH_PROVIDER", "searxng");
    expect(() => searchProviderFromEnv()).toThrow(EnvError);
    expect(() => searchProviderFromEnv()).toThrow(/HERALD_SEARCH_URL/);
    vi.stubEnv("HERALD_SEARCH_URL", "http://127.0.0.1:8888");
    expect(searchProviderFromEnv().name).toBe("searxng");
    vi.stubEnv("HERALD_SEARCH_PROVIDER", "tavily");
    expect(() => searchProviderFromEnv()).toThrow(/TAVILY_API_KEY/);
    vi.stubEnv("HERALD_SEARCH_PROVIDER", "brave");
    expect(() => searchProviderFromEnv()).toThrow(/BRAVE_SEARCH_API_KEY/);
  });
});

describe("searchWeb: the shared retry, Retry-After and breaker policy", () => {
  const searx = (s: WebStub): SearchProvider => searxngProvider(s.origin);
  const ok = { results: [{ url: "https://ok.example/", title: "ok", content: "" }] };

  it("retries a 429 after the provider's Retry-After, then answers", async () => {
    let calls = 0;
    const api = await stub((_req, res) =>
      ++calls === 1 ? sendJson(res, { error: "slow down" }, 429, { "retry-after-ms": "300" }) : sendJson(res, ok),
    );
    const started = performance.now();
    const outcome = await searchWeb(searx(api), "q", { limit: 3 });
    expect(outcome.status).toBe("ok");
    expect(outcome.results).toHaveLength(1);
    expect(api.requests).toHaveLength(2);
    expect(performance.now() - started).toBeGreaterThanOrEqual(290);
  });

  it("a provider that stays down returns no results (never throws), and its open breaker sends nothing more", async () => {
    const api = await stub((_req, res) => sendJson(res, { error: "down" }, 503, { "retry-after": "0" }));
    const breaker = new Breaker({ threshold: 3, cooldownMs: 60_000 });
    const first = await searchWeb(searx(api), "q", { limit: 3, breaker, maxAttempts: 3 });
    expect(first).toEqual({ results: [], status: "unavailable", retryAfterMs: 0 });
    expect(api.requests).toHaveLength(3);
    const second = await searchWeb(searx(api), "q", { limit: 3, breaker });
    expect(second.status).toBe("unavailable");
    expect(second.retryAfterMs).toBeGreaterThan(50_000);
    expect(api.requests).toHaveLength(3);
  });

  it("a refusal (401) is not retried and does not open the breaker", async () => {
    const api = await stub((_req, res) => sendJson(res, { error: "bad key" }, 401));
    const breaker = new Breaker({ threshold: 1 });
    expect((await searchWeb(searx(api), "q", { limit: 3, breaker })).status).toBe("unavailable");
    expect(api.requests).toHaveLength(1);
    expect(breaker.state).toBe("closed");
  });

  it("a retry-after beyond the budget ends the search at once instead of waiting", async () => {
    const api = await stub((_req, res) => sendJson(res, {}, 429, { "retry-after": "120" }));
    const started = performance.now();
    const outcome = await searchWeb(searx(api), "q", { limit: 3, budgetMs: 5_000 });
    expect(outcome).toMatchObject({ status: "unavailable", retryAfterMs: 120_000 });
    expect(api.requests).toHaveLength(1);
    expect(performance.now() - started).toBeLessThan(2_000);
  });

  it("HERALD_SEARCH_PROVIDER=none searches nothing", async () => {
    vi.stubEnv("HERALD_SEARCH_PROVIDER", "none");
    expect(await searchWeb(searchProviderFromEnv(), "q", { limit: 3 })).toEqual({
      results: [],
      status: "off",
      retryAfterMs: null,
    });
  });
});

// CI and this machine have no network: the default provider must fail fast, not hang a research step.
const online = await lookup("en.wikipedia.org").then(
  () => true,
  () => false,
);
describe.skipIf(online)("the default provider without a network", () => {
  it("returns no results within a second", async () => {
    const started = performance.now();
    const outcome = await searchWeb(searchProviderFromEnv(), "sea otters", { limit: 5 });
    const elapsed = performance.now() - started;
    expect(outcome).toMatchObject({ results: [], status: "unavailable" });
    expect(elapsed).toBeLessThan(1_000);
  });
});
