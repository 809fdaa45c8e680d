import { afterEach, describe, expect, it } from "vitest";
import type { LookupAddress } from "node:dns";
import { startWebStub, type WebStub } from "@/tests/web-stub";
import { FetchError, safeFetch, USER_AGENT_TOKEN, type SafeFetchOptions } from "./safe-fetch";

const stubs: WebStub[] = [];
afterEach(async () => {
  await Promise.all(stubs.splice(0).map((s) => s.close()));
});

async function page(body = "hello", type = "text/plain") {
  const stub = await startWebStub((_req, res) => {
    res.writeHead(200, { "content-type": type });
    res.end(body);
  });
  stubs.push(stub);
  return stub;
}

async function refusal(url: string, opts: SafeFetchOptions = {}): Promise<FetchError> {
  const err = await safeFetch(url, { allowPrivate: false, ...opts }).then(
    () => null,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(FetchError);
  return err as FetchError;
}

/** A resolver standing in for DNS: names map to fixed addresses. */
function fakeDns(table: Record<string, string[]>) {
  const calls: string[] = [];
  const resolve = async (host: string): Promise<LookupAddress[]> => {
    calls.push(host);
    const addresses = table[host];
    if (!addresses) throw Object.assign(new Error("not found"), { code: "ENOTFOUND" });
    return addresses.map((address) => ({ address, family: address.includes(":") ? 6 : 4 }));
  };
  return { resolve, calls };
}

describe("safeFetch: addresses a remote-chosen URL may not reach", () => {
  it("refuses loopback, private, link-local, metadata and IPv6 loopback literals without connecting", async () => {
    const stub = await page();
    for (const url of [
      stub.origin + "/",
      `http://127.0.0.2:${stub.port}/`,
      "http://10.0.0.1/",
      "http://169.254.169.254/latest/meta-data/",
      `http://[::1]:${stub.port}/`,
      `http://[::ffff:127.0.0.1]:${stub.port}/`,
      "http://[fd00:ec2::254]/",
      "http://100.64.0.1/",
      "http://0.0.0.0/",
    ]) {
      expect((await refusal(url)).reason, url).toBe("address");
    }
    expect(stub.connections).toBe(0);
  });

  it("refuses a name that resolves to loopback (localhost), and a name with one private address among public ones", async () => {
    const stub = await page();
    expect((await refusal(`http://localhost:${stub.port}/`)).reason).toBe("address");
    const dns = fakeDns({ "mixed.example": ["93.184.216.34", "127.0.0.1"], "meta.example": ["169.254.169.254"] });
    expect((await refusal(`http://mixed.example:${stub.port}/`, { resolve: dns.resolve })).reason).toBe("address");
    expect((await refusal("http://meta.example/", { resolve: dns.resolve })).reason).toBe("address");
    expect(stub.connections).toBe(0);
  });

  it("fetches them all with the switch on (HERALD_FETCH_ALLOW_PRIVATE=1)", async () => {
    const stub = await page("inside");
    const res = await safeFetch(`http://localhost:${stub.port}/x`, { allowPrivate: true });
    expect(res.body.toString()).toBe("inside");
    expect(res.finalUrl).toBe(`http://localhost:${stub.port}/x`);
    expect(stub.requests[0]!.headers["user-agent"]).toMatch(
      new RegExp(`^${USER_AGENT_TOKEN}/\\d+\\.\\d+\\.\\d+ \\(\\+`),
    );
  });

  it("connects to the address it checked, not to a second DNS answer", async () => {
    const stub = await page("pinned");
    // The system resolver knows no `pinned.test`: the request can only arrive if the socket used the checked address.
    const dns = fakeDns({ "pinned.test": ["127.0.0.1"] });
    const res = await safeFetch(`http://pinned.test:${stub.port}/`, { allowPrivate: true, resolve: dns.resolve });
    expect(res.body.toString()).toBe("pinned");
    expect(dns.calls).toEqual(["pinned.test"]);
    expect(stub.requests[0]!.headers.host).toBe(`pinned.test:${stub.port}`);
  });

  it("refuses schemes other than http(s) and credentials in the URL", async () => {
    expect((await refusal("file:///etc/passwd")).reason).toBe("scheme");
    expect((await refusal("ftp://example.org/")).reason).toBe("scheme");
    expect((await refusal("http://user:pass@example.org/")).reason).toBe("scheme");
    expect((await refusal("not a url")).reason).toBe("scheme");
  });
});

describe("safeFetch: redirects", () => {
  it("checks every hop: a redirect from an allowed origin to a private address is not followed", async () => {
    const inside = await page("secret");
    const dns = fakeDns({ "intranet.example": ["10.0.0.1"], localhost: ["127.0.0.1"] });
    const outside = await startWebStub((req, res) => {
      const to = req.path === "/to-loopback" ? `http://localhost:${inside.port}/secret` : "http://intranet.example/";
      res.writeHead(302, { location: to });
      res.end();
    });
    stubs.push(outside);
    // The first hop stands for a public site: its origin is let through as the operator's would be.
    const opts = { trustedOrigins: [outside.origin], resolve: dns.resolve };
    expect((await refusal(`${outside.origin}/to-loopback`, opts)).reason).toBe("address");
    expect((await refusal(`${outside.origin}/to-intranet`, opts)).reason).toBe("address");
    expect(outside.requests).toHaveLength(2);
    expect(inside.connections).toBe(0);
    expect(dns.calls).toEqual(["localhost", "intranet.example"]);
  });

  it("follows at most 5 redirects and reports the final URL", async () => {
    const stub = await startWebStub((req, res) => {
      const n = Number(req.path.slice(1));
      if (n > 0) {
        res.writeHead(301, { location: `/${n - 1}` });
        return void res.end();
      }
      res.writeHead(200, { "content-type": "text/plain" });
      res.end("arrived");
    });
    stubs.push(stub);
    const five = await safeFetch(`${stub.origin}/5`, { allowPrivate: true });
    expect(five.body.toString()).toBe("arrived");
    expect(five.finalUrl).toBe(`${stub.origin}/0`);
    const requestsBefore = stub.requests.length;
    const err = await safeFetch(`${stub.origin}/6`, { allowPrivate: true }).catch((e: unknown) => e);
    expect((err as FetchError).reason).toBe("redirects");
    expect(stub.requests.length - requestsBefore).toBe(6);
  });
});

describe("safeFetch: caps", () => {
  it("stops reading at the size cap and closes the connection", async () => {
    let written = 0;
    const stub = await startWebStub((_req, res) => {
      res.writeHead(200, { "content-type": "text/plain" });
      const chunk = Buffer.alloc(16 * 1024, "a");
      const pump = () => {
        while (written < 50 * 1024 * 1024) {
          written += chunk.length;
          if (!res.write(chunk)) return void res.once("drain", pump);
        }
        res.end();
      };
      res.on("close", () => (written = -written));
      pump();
    });
    stubs.push(stub);
    const res = await safeFetch(stub.origin, { allowPrivate: true, maxBytes: 64 * 1024 });
    expect(res.truncated).toBe(true);
    expect(res.body.length).toBe(64 * 1024);
    // The server saw the connection close long before its 50 MiB were sent.
    const { waitFor } = await import("@/tests/helpers");
    await waitFor(async () => written < 0, 5_000, "the server to see the connection closed");
    expect(-written).toBeLessThan(10 * 1024 * 1024);
  });

  it("gives up at the time cap on a server that never answers", async () => {
    const stub = await startWebStub(() => {
      /* never answers */
    });
    stubs.push(stub);
    const started = performance.now();
    const err = await safeFetch(stub.origin, { allowPrivate: true, timeoutMs: 300 }).catch((e: unknown) => e);
    expect((err as FetchError).reason).toBe("timeout");
    expect(performance.now() - started).toBeLessThan(3_000);
  });

  it("a non-2xx answer is a status refusal", async () => {
    const stub = await startWebStub((_req, res) => {
      res.writeHead(404);
      res.end("gone");
    });
    stubs.push(stub);
    const err = (await safeFetch(stub.origin, { allowPrivate: true }).catch((e: unknown) => e)) as FetchError;
    expect([err.reason, err.status]).toEqual(["status", 404]);
  });
});
