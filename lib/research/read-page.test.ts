import { afterEach, describe, expect, it } from "vitest";
import { startWebStub, type WebStub } from "@/tests/web-stub";
import { ARTICLE } from "@/tests/research-pages";
import { readPage } from "./read-page";
import { RobotsCache } from "./robots";
import { FetchError } from "./safe-fetch";

const stubs: WebStub[] = [];
afterEach(async () => {
  await Promise.all(stubs.splice(0).map((s) => s.close()));
});

async function site() {
  const stub = await startWebStub((req, res) => {
    const send = (type: string, body: string | Buffer) => {
      res.writeHead(200, { "content-type": type });
      res.end(body);
    };
    if (req.path === "/robots.txt") return send("text/plain", "User-agent: *\nDisallow: /private\n");
    if (req.path === "/article") return send("text/html; charset=utf-8", ARTICLE);
    if (req.path === "/private/page") return send("text/plain", "members only");
    if (req.path === "/notes.md") return send("text/markdown; charset=utf-8", "# Notes\n\nOtters sleep holding hands.");
    if (req.path === "/paper.pdf") return send("application/pdf", "%PDF-1.7 ...");
    if (req.path === "/mislabelled.pdf")
      return send("text/plain", "%PDF-1.7\n%\xe2\xe3\xcf\xd3\n1 0 obj << /Type /Catalog >> endobj");
    if (req.path === "/endless.pdf") {
      // A PDF whose body never ends: only a fetcher that reads the body would wait for it.
      res.writeHead(200, { "content-type": "application/pdf" });
      return void res.write(Buffer.alloc(64 * 1024, 0x25));
    }
    if (req.path === "/old") {
      res.writeHead(301, { location: "/article" });
      return void res.end();
    }
    if (req.path === "/to-private") {
      res.writeHead(302, { location: "/private/page" });
      return void res.end();
    }
    res.writeHead(404);
    res.end();
  });
  stubs.push(stub);
  return stub;
}

const opts = () => ({ allowPrivate: true, robots: new RobotsCache({ allowPrivate: true }) });

describe("readPage", () => {
  it("reads an article's main text, following a redirect, and names the final URL", async () => {
    const stub = await site();
    const page = await readPage(`${stub.origin}/old`, opts());
    expect(page).toMatchObject({
      url: `${stub.origin}/old`,
      finalUrl: `${stub.origin}/article`,
      title: "Sea otters use tools",
      site: "Coastal Review",
    });
    expect(page.text).toContain("1,842 hammering bouts");
    expect(page.text).not.toContain("NAV-LINK");
    expect(page.hash).toMatch(/^[0-9a-f]{64}$/);
  });

  it("honours robots.txt on every hop and asks for it once per origin", async () => {
    const stub = await site();
    const o = opts();
    for (const path of ["/private/page", "/to-private"]) {
      const err = await readPage(`${stub.origin}${path}`, o).catch((e: unknown) => e);
      expect((err as FetchError).reason, path).toBe("robots");
    }
    expect(stub.requests.filter((r) => r.path === "/private/page")).toHaveLength(0);
    await readPage(`${stub.origin}/notes.md`, o);
    expect(stub.requests.filter((r) => r.path === "/robots.txt")).toHaveLength(1);
  });

  it("reads Markdown as it is and refuses types it does not read", async () => {
    const stub = await site();
    const md = await readPage(`${stub.origin}/notes.md`, opts());
    expect(md).toMatchObject({ title: "Notes", text: "# Notes\n\nOtters sleep holding hands." });
    const err = await readPage(`${stub.origin}/paper.pdf`, opts()).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(FetchError);
    expect((err as FetchError).reason).toBe("type");
  });

  it("skips a PDF cleanly: refused by its type before its body is read, and by its bytes when served as text", async () => {
    const stub = await site();
    const endless = await readPage(`${stub.origin}/endless.pdf`, { ...opts(), timeoutMs: 10_000 }).catch(
      (e: unknown) => e,
    );
    expect(endless).toBeInstanceOf(FetchError);
    expect((endless as FetchError).reason).toBe("type");
    const mislabelled = await readPage(`${stub.origin}/mislabelled.pdf`, opts()).catch((e: unknown) => e);
    expect(mislabelled).toBeInstanceOf(FetchError);
    expect((mislabelled as FetchError).reason).toBe("type");
  });

  it("without the switch, a page on loopback is not fetched at all (not even its robots.txt)", async () => {
    const stub = await site();
    const err = await readPage(`${stub.origin}/article`, { robots: new RobotsCache() }).catch((e: unknown) => e);
    expect((err as FetchError).reason).toBe("address");
    expect(stub.connections).toBe(0);
  });
});
