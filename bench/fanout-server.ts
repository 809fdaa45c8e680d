// The web side of bench/fanout.ts in its own process, so its memory is only the
// server's: /api/events and POST /api/conversations/:id/messages through their
// real route handlers, behind a plain Node HTTP server (no Next: what is measured
// is Herald's feed, not the framework's per-request cost). GET /bench/memory
// answers this process's memory after a full GC (started with --expose-gc).
import http from "node:http";
import type { AddressInfo } from "node:net";
import { sql } from "kysely";

type Handler = (req: Request, ctx: { params: Promise<Record<string, string>> }) => Promise<Response>;

async function main() {
  const events = await import("../app/api/events/route");
  const messages = await import("../app/api/conversations/[id]/messages/route");
  const { db } = await import("../lib/db/kysely");
  await sql`SELECT 1`.execute(db());

  const server = http.createServer(async (req, res) => {
    const url = new URL(req.url ?? "/", "http://localhost");
    if (url.pathname === "/bench/memory") {
      const gc = (globalThis as { gc?: () => void }).gc;
      for (let i = 0; i < 3; i++) gc?.();
      res.setHeader("content-type", "application/json");
      const hub = (globalThis as { heraldFeedHub?: { accounts?: Map<unknown, unknown> } }).heraldFeedHub;
      res.end(
        JSON.stringify({
          ...process.memoryUsage(),
          feedAccounts: hub?.accounts?.size ?? null,
          sockets: await new Promise((r) => server.getConnections((_e, n) => r(n))),
        }),
      );
      return;
    }
    let handler: Handler | null = null;
    let params: Record<string, string> = {};
    const m = /^\/api\/conversations\/([^/]+)\/messages$/.exec(url.pathname);
    if (url.pathname === "/api/events" && req.method === "GET") handler = events.GET as Handler;
    else if (m && req.method === "POST") {
      handler = messages.POST as Handler;
      params = { id: m[1] };
    }
    if (!handler) {
      res.statusCode = 404;
      res.end();
      return;
    }
    const ac = new AbortController();
    res.once("close", () => ac.abort());
    const chunks: Buffer[] = [];
    if (req.method !== "GET") for await (const c of req) chunks.push(c as Buffer);
    const headers = new Headers();
    for (const [k, v] of Object.entries(req.headers)) if (typeof v === "string") headers.set(k, v);
    const request = new Request(`http://localhost:3000${req.url}`, {
      method: req.method,
      headers,
      body: chunks.length ? Buffer.concat(chunks) : undefined,
      signal: ac.signal,
    });
    try {
      const response = await handler(request, { params: Promise.resolve(params) });
      res.writeHead(response.status, Object.fromEntries(response.headers));
      res.flushHeaders();
      if (!response.body) return void res.end();
      const reader = response.body.getReader();
      ac.signal.addEventListener("abort", () => void reader.cancel().catch(() => {}), { once: true });
      for (;;) {
        const { value, done } = await reader.read();
        if (done) break;
        if (!res.write(value)) await new Promise((r) => res.once("drain", r));
      }
      res.end();
    } catch (err) {
      if (!res.headersSent) res.statusCode = 500;
      res.end();
      if (!ac.signal.aborted) console.error("[fanout-server]", err);
    }
  });
  server.keepAliveTimeout = 120_000;
  // An exit of our own, so --cpu-prof (BENCH_CPU_PROF) gets to write its profile.
  process.once("SIGTERM", () => process.exit(0));
  server.listen(0, "127.0.0.1", () => {
    process.send?.({ port: (server.address() as AddressInfo).port });
  });
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
