import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, describe, expect, it } from "vitest";
import { getDb } from "@/lib/db/client";
import * as authRoute from "@/app/api/auth/[...all]/route";
import { ORIGIN, signUp } from "@/tests/helpers";
import { applyClientAddress, parseTrustedProxies } from "./client-ip";
import { emailKey } from "./throttle";

// Requests go through a real socket and the same applyClientAddress() that
// scripts/server.ts runs before Next, then into the /api/auth route handler.
// Linux routes all of 127.0.0.0/8 to loopback, so `localAddress` gives each
// "client" its own socket address.

const servers: http.Server[] = [];
afterAll(async () => {
  await Promise.all(servers.map((s) => new Promise((r) => s.close(r))));
});

async function startServer(trustedProxies?: string): Promise<number> {
  const trusted = parseTrustedProxies(trustedProxies);
  const server = http.createServer(async (req, res) => {
    applyClientAddress(req, trusted);
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const headers = new Headers();
    for (const [k, v] of Object.entries(req.headers))
      if (v !== undefined) headers.set(k, Array.isArray(v) ? v.join(", ") : v);
    const out = await authRoute.POST(
      new Request(`${ORIGIN}${req.url}`, { method: req.method, headers, body: Buffer.concat(chunks) }),
    );
    res.writeHead(out.status, Object.fromEntries(out.headers));
    res.end(Buffer.from(await out.arrayBuffer()));
  });
  servers.push(server);
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  return (server.address() as AddressInfo).port;
}

interface Reply {
  status: number;
  retryAfter: string | null;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- error bodies of two shapes
  json: any;
}

function signIn(
  port: number,
  email: string,
  password: string,
  opts: { from?: string; headers?: Record<string, string> } = {},
): Promise<Reply> {
  const body = JSON.stringify({ email, password });
  return new Promise((resolve, reject) => {
    const req = http.request(
      {
        host: "127.0.0.1",
        port,
        method: "POST",
        path: "/api/auth/sign-in/email",
        localAddress: opts.from ?? "127.0.0.1",
        headers: {
          "content-type": "application/json",
          origin: ORIGIN,
          "content-length": Buffer.byteLength(body),
          ...opts.headers,
        },
      },
      (res) => {
        let text = "";
        res.setEncoding("utf8");
        res.on("data", (d) => (text += d));
        res.on("end", () => {
          let json: unknown = null;
          try {
            json = JSON.parse(text);
          } catch {
            json = text;
          }
          resolve({
            status: res.statusCode!,
            retryAfter: (res.headers["retry-after"] as string | undefined) ?? null,
            json,
          });
        });
      },
    );
    req.on("error", reject);
    req.end(body);
  });
}

const WRONG = "not the password";
const RIGHT = "correct horse battery";
const nobody = (tag: string, i: number) => `nobody-${tag}-${i}-${Date.now()}@example.test`;

describe("sign-in throttling", () => {
  it("40 wrong passwords, each with its own forged X-Forwarded-For, are throttled by the socket address", async () => {
    const port = await startServer();
    const statuses: number[] = [];
    let throttled: Reply | null = null;
    for (let i = 0; i < 40; i++) {
      // A different account each time, so only the per-address limit can stop them.
      const r = await signIn(port, nobody("xff", i), WRONG, {
        from: "127.0.0.10",
        headers: {
          "x-forwarded-for": `198.51.100.${i + 1}`,
          "x-real-ip": `203.0.113.${i + 1}`,
          "x-herald-client-ip": `192.0.2.${i + 1}`,
        },
      });
      statuses.push(r.status);
      if (r.status === 429) throttled ??= r;
    }
    expect(statuses.slice(0, 20).every((s) => s === 401)).toBe(true);
    expect(statuses.slice(20).every((s) => s === 429)).toBe(true);
    expect(Number(throttled!.retryAfter)).toBeGreaterThanOrEqual(1);
    expect(throttled!.json.error.code).toBe("rate_limited");
    // Another address is not affected.
    expect((await signIn(port, nobody("xff-other", 0), WRONG, { from: "127.0.0.11" })).status).toBe(401);
  });

  it("wrong passwords for one account are throttled per email, across addresses; the right one waits too", async () => {
    const port = await startServer();
    const victim = await signUp("Victim");
    const bystander = await signUp("Bystander");
    const statuses: number[] = [];
    for (let i = 0; i < 12; i++) {
      statuses.push(
        (await signIn(port, i % 2 ? victim.email : victim.email.toUpperCase(), WRONG, { from: `127.0.1.${i + 1}` }))
          .status,
      );
    }
    expect(statuses).toEqual([...Array(10).fill(401), 429, 429]);
    // Locked means locked: a correct password would otherwise tell the attacker it was correct.
    const locked = await signIn(port, victim.email, RIGHT, { from: "127.0.1.50" });
    expect(locked.status).toBe(429);
    expect(Number(locked.retryAfter)).toBeGreaterThan(14 * 60);
    expect(locked.retryAfter && Number(locked.retryAfter) <= 15 * 60).toBe(true);
    expect(locked.json.error.code).toBe("rate_limited");
    // Other accounts, from the same addresses, are not.
    expect((await signIn(port, bystander.email, RIGHT, { from: "127.0.1.1" })).status).toBe(200);
  });

  it("a successful sign-in clears the account's count", async () => {
    const port = await startServer();
    const u = await signUp("Forgetful");
    for (let i = 0; i < 3; i++) expect((await signIn(port, u.email, WRONG, { from: "127.0.2.1" })).status).toBe(401);
    expect(await getDb().authThrottle.findUnique({ where: { key: emailKey(u.email) } })).toMatchObject({ hits: 3 });
    expect((await signIn(port, u.email, RIGHT, { from: "127.0.2.1" })).status).toBe(200);
    expect(await getDb().authThrottle.findUnique({ where: { key: emailKey(u.email) } })).toBeNull();
  });

  it("behind a trusted proxy, each client behind it has its own limit and cannot forge its way to a new one", async () => {
    // The test's sockets come from 127.0.3.1: that is "the proxy".
    const port = await startServer("127.0.3.1");
    const viaProxy = (client: string, i: number, forged?: string) =>
      signIn(port, nobody(`proxy-${client}`, i), WRONG, {
        from: "127.0.3.1",
        headers: { "x-forwarded-for": forged ? `${forged}, ${client}` : client },
      });
    const statuses: number[] = [];
    for (let i = 0; i < 21; i++) statuses.push((await viaProxy("198.51.100.7", i)).status);
    expect(statuses.slice(0, 20).every((s) => s === 401)).toBe(true);
    expect(statuses[20]).toBe(429);
    // The client writes a fresh address in front; the proxy appends the real one.
    expect((await viaProxy("198.51.100.7", 99, "203.0.113.77")).status).toBe(429);
    // Someone else behind the same proxy is still let through.
    expect((await viaProxy("198.51.100.8", 0)).status).toBe(401);
  });
});
