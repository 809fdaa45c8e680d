import { afterEach, describe, expect, it } from "vitest";
import { startWebStub, type WebStub } from "@/tests/web-stub";
import { isAllowed, parseRobots, RobotsCache } from "./robots";
import { cpuMs } from "@/tests/adversarial-text";

const stubs: WebStub[] = [];
afterEach(async () => {
  await Promise.all(stubs.splice(0).map((s) => s.close()));
});

const allowed = (robots: string, path: string) => isAllowed(parseRobots(robots), new URL(path, "https://site.example"));

describe("robots.txt", () => {
  it("uses the group naming HeraldResearch, else *; longest match wins, Allow wins a tie", () => {
    const txt = [
      "User-agent: *",
      "Disallow: /",
      "",
      "User-agent: HeraldResearch/1.0",
      "Disallow: /private",
      "Allow: /private/open",
      "Disallow: /tie",
      "Allow: /tie",
    ].join("\n");
    expect(allowed(txt, "/article")).toBe(true);
    expect(allowed(txt, "/private/x")).toBe(false);
    expect(allowed(txt, "/private/open/y")).toBe(true);
    expect(allowed(txt, "/tie")).toBe(true);
    expect(allowed("User-agent: *\nDisallow: /", "/anything")).toBe(false);
    expect(allowed("User-agent: otherbot\nDisallow: /", "/anything")).toBe(true);
    expect(allowed("User-agent: *\nDisallow:", "/anything")).toBe(true);
    expect(allowed("User-agent: *\nDisallow: /", "/robots.txt")).toBe(true);
  });

  it("reads * and $ in patterns, one group for several user-agent lines, and ignores comments", () => {
    const txt = "User-agent: a\nUser-agent: * # everyone\nDisallow: /*.pdf$\nDisallow: /search*q=\n";
    expect(allowed(txt, "/paper.pdf")).toBe(false);
    expect(allowed(txt, "/paper.pdf?x=1")).toBe(true);
    expect(allowed(txt, "/search/results?q=otters")).toBe(false);
    expect(allowed(txt, "/searching")).toBe(true);
  });

  it("matches a hostile pattern in linear time", () => {
    const txt = `User-agent: *\nDisallow: /${"*a".repeat(900)}b\n`;
    let ok = false;
    expect(cpuMs(() => (ok = allowed(txt, "/" + "a".repeat(1_900))))).toBeLessThan(200);
    expect(ok).toBe(true);
  });

  it("fetches robots.txt once per origin: missing (404) allows, a server error disallows", async () => {
    let status = 404;
    const stub = await startWebStub((_req, res) => {
      res.writeHead(status, { "content-type": "text/plain" });
      res.end(status === 200 ? "User-agent: *\nDisallow: /no" : "");
    });
    stubs.push(stub);
    const missing = new RobotsCache({ allowPrivate: true });
    expect(await missing.allowed(new URL(`${stub.origin}/a`))).toBe(true);
    expect(await missing.allowed(new URL(`${stub.origin}/b`))).toBe(true);
    expect(stub.requests.map((r) => r.path)).toEqual(["/robots.txt"]);
    status = 503;
    expect(await new RobotsCache({ allowPrivate: true }).allowed(new URL(`${stub.origin}/a`))).toBe(false);
    status = 200;
    const present = new RobotsCache({ allowPrivate: true });
    expect(await present.allowed(new URL(`${stub.origin}/no/x`))).toBe(false);
    expect(await present.allowed(new URL(`${stub.origin}/yes`))).toBe(true);
    expect(stub.requests[stub.requests.length - 1]!.headers["user-agent"]).toMatch(/^HeraldResearch\//);
  });

  it("keeps an answer for its time, a failure for less, and at most maxEntries origins (least recently used out)", async () => {
    let status = 200;
    const robotsAsked: string[] = [];
    const site = async () => {
      const stub = await startWebStub((req, res) => {
        if (req.path === "/robots.txt") robotsAsked.push(stub.origin);
        res.writeHead(status, { "content-type": "text/plain" });
        res.end(status === 200 ? "User-agent: *\nDisallow: /no" : "");
      });
      stubs.push(stub);
      return stub;
    };
    const stub = await site();
    let now = 0;
    const cache = new RobotsCache(
      { allowPrivate: true },
      { ttlMs: 1_000, failureTtlMs: 100, maxEntries: 2, now: () => now },
    );
    const at = (origin: string, path: string) => cache.allowed(new URL(path, origin));
    expect(await Promise.all([at(stub.origin, "/no/x"), at(stub.origin, "/yes")])).toEqual([false, true]);
    now = 999;
    await at(stub.origin, "/yes");
    expect(robotsAsked.length).toBe(1);
    now = 1_000;
    status = 503;
    expect(await at(stub.origin, "/yes")).toBe(false);
    expect(robotsAsked.length).toBe(2);
    now = 1_099;
    await at(stub.origin, "/yes");
    expect(robotsAsked.length).toBe(2);
    now = 1_100;
    status = 200;
    expect(await at(stub.origin, "/yes")).toBe(true);
    expect(robotsAsked.length).toBe(3);

    // Two more origins: the least recently used one goes.
    const second = (await site()).origin;
    const third = (await site()).origin;
    await at(second, "/yes");
    await at(stub.origin, "/yes"); // used again: now the newest
    await at(third, "/yes");
    expect(cache.size).toBe(2);
    expect(robotsAsked.length).toBe(5);
    await at(stub.origin, "/yes");
    expect(robotsAsked.length).toBe(5);
    await at(second, "/yes");
    expect(robotsAsked.length).toBe(6);
  });

  it("holds at most maxChars of patterns: a huge file pushes older origins out rather than growing the cache", async () => {
    const huge = `User-agent: *\n${Array.from({ length: 400 }, (_, i) => `Disallow: /private-section-${i}`).join("\n")}\n`;
    const small = await startWebStub((_req, res) => {
      res.writeHead(200, { "content-type": "text/plain" }).end("User-agent: *\nDisallow: /no");
    });
    const big = await startWebStub((_req, res) => {
      res.writeHead(200, { "content-type": "text/plain" }).end(huge);
    });
    stubs.push(small, big);
    const cache = new RobotsCache({ allowPrivate: true }, { maxChars: 2_000 });
    expect(await cache.allowed(new URL("/no", small.origin))).toBe(false);
    expect(cache.size).toBe(1);
    expect(await cache.allowed(new URL("/private-section-399", big.origin))).toBe(false);
    expect(cache.size).toBe(1);
    await cache.allowed(new URL("/no", small.origin));
    expect(small.requests.filter((r) => r.path === "/robots.txt")).toHaveLength(2);
  });
});
