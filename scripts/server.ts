// The web process (started by scripts/start.ts; `--dev` for `npm run dev`): Next.js
// behind a plain Node HTTP server. App Router handlers never see the socket and
// Next trusts a client's own X-Forwarded-For, so this is where the client address
// is decided (lib/auth/client-ip.ts): from the socket, or through the proxies
// listed in HERALD_TRUSTED_PROXIES, and where request bodies are capped before
// anything reads them (lib/limits/body-cap.ts). Listens on HOST (default 127.0.0.1) and PORT.
//
// SIGTERM/SIGINT: stop accepting, end the SSE feeds at once (they never finish on
// their own; browsers resume them by cursor), give other requests a grace period.

import http from "node:http";
import path from "node:path";
import type { Duplex } from "node:stream";
import { fileURLToPath } from "node:url";
import { Readable } from "node:stream";
import { pipeline } from "node:stream/promises";
import type { ReadableStream as WebReadableStream } from "node:stream/web";
import { applyClientAddress, parseTrustedProxies } from "../lib/auth/client-ip";
import { env } from "../lib/config/env";
import { capNodeRequestBody } from "../lib/limits/body-cap";
import { setUpDrivers } from "../lib/drivers/setup";
import { STATIC_SECURITY_HEADERS } from "../lib/security/csp";
import { log } from "../lib/util/log";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const DEV = process.argv.includes("--dev");
const HOST = env("HOST");
const PORT = env("PORT");
// Below start.ts's grace for its children, so we exit on our own terms.
const SHUTDOWN_GRACE_MS = 10_000;
const FEED_PATH = "/api/events";

const say = (s: string) => console.log(`[web] ${s}`);

function settlesWithin(p: Promise<unknown>, ms: number): Promise<boolean> {
  return new Promise((resolve) => {
    const t = setTimeout(() => resolve(false), ms);
    void p.then(() => {
      clearTimeout(t);
      resolve(true);
    });
  });
}

type RouteHandler = (req: Request, ctx: { params: Promise<Record<string, string>> }) => Promise<Response>;

/**
 * GET /api/events through its route handler (the same auth, parsing and errors),
 * without Next's request pipeline: Next keeps ≈70 KiB of per-request state for as
 * long as a response streams, and a feed streams for hours (bench/fanout.ts --next).
 * Next's static security headers are added here instead.
 */
async function serveFeed(handler: RouteHandler, req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
  const ac = new AbortController();
  res.once("close", () => ac.abort());
  const headers = new Headers();
  for (const [k, v] of Object.entries(req.headers))
    if (v !== undefined) headers.set(k, Array.isArray(v) ? v.join(", ") : v);
  const request = new Request(new URL(req.url ?? "/", "http://localhost"), { headers, signal: ac.signal });
  const response = await handler(request, { params: Promise.resolve({}) });
  for (const { key, value } of STATIC_SECURITY_HEADERS) res.setHeader(key, value);
  response.headers.forEach((value, key) => {
    if (key !== "set-cookie") res.setHeader(key, value);
  });
  const cookies = response.headers.getSetCookie();
  if (cookies.length > 0) res.setHeader("set-cookie", cookies);
  res.writeHead(response.status);
  if (!response.body) return void res.end();
  res.flushHeaders();
  // Backpressure as through Next: a client that stops reading fills the feed's own bound.
  await pipeline(Readable.fromWeb(response.body as WebReadableStream<Uint8Array>), res).catch(() => {
    /* the client went away; the feed closed with its signal */
  });
}

async function main(): Promise<void> {
  // Before Next loads any route: they find the drivers on globalThis (lib/drivers/registry.ts).
  const drivers = await setUpDrivers();
  say(`drivers: ${drivers.join(", ")}`);
  const trusted = parseTrustedProxies(env("HERALD_TRUSTED_PROXIES"));
  if (trusted) say(`trusting X-Forwarded-For from ${env("HERALD_TRUSTED_PROXIES")}`);

  // `next start`/`next dev` set it; React and Next choose their builds by it when loaded.
  (process.env as Record<string, string | undefined>).NODE_ENV ??= DEV ? "development" : "production";
  const { default: next } = await import("next");

  const server = http.createServer();
  // A client that reuses an idle keep-alive connection at the moment the server closes it gets ECONNRESET for a
  // request the server never saw (the browser suite's API calls met it at Node's 5 s default). Clients and proxies drop
  // idle connections well within a minute, so the server keeps them longer; Node wants the header limit above it.
  server.keepAliveTimeout = 65_000;
  server.headersTimeout = 66_000;
  // Upgraded sockets (the dev HMR websocket) are no longer the HTTP server's to
  // close, but server.close() still waits for them: we end them ourselves.
  const upgraded = new Set<Duplex>();
  // Registered before Next attaches its own upgrade listener on the first request,
  // so that one sees the cleaned headers too.
  server.on("upgrade", (req: http.IncomingMessage, socket: Duplex) => {
    applyClientAddress(req, trusted);
    upgraded.add(socket);
    socket.once("close", () => upgraded.delete(socket));
  });

  const app = next({ dev: DEV, dir: ROOT, hostname: HOST, port: PORT, httpServer: server });
  await app.prepare();
  const handle = app.getRequestHandler();
  // `next dev` keeps the route reloadable; production serves feeds directly (serveFeed).
  const feedRoute = DEV ? null : ((await import("../app/api/events/route")) as { GET: RouteHandler });

  const feeds = new Set<http.ServerResponse>();
  server.on("request", (req: http.IncomingMessage, res: http.ServerResponse) => {
    applyClientAddress(req, trusted);
    // Before Next: an oversized body is refused unread on every route, `route()` or not.
    if (!capNodeRequestBody(req, res)) return;
    const feed = req.url?.split("?")[0] === FEED_PATH;
    if (feed) {
      feeds.add(res);
      res.once("close", () => feeds.delete(res));
    }
    (feed && feedRoute && req.method === "GET" ? serveFeed(feedRoute.GET, req, res) : handle(req, res)).catch(
      (err: unknown) => {
        // Never the whole URL: share, reset and unsubscribe links carry their tokens in it.
        log("web").error({ method: req.method, path: req.url ?? "", err }, "request failed");
        if (!res.headersSent) {
          res.statusCode = 500;
          res.end("Internal Server Error");
        } else res.destroy();
      },
    );
  });

  let stopping = false;
  const stop = async (sig: NodeJS.Signals) => {
    if (stopping) return;
    stopping = true;
    const closed = new Promise<void>((resolve) => server.close(() => resolve()));
    server.closeIdleConnections();
    for (const res of feeds) res.destroy();
    for (const socket of upgraded) socket.destroy();
    // Like `next dev`: nothing in flight in development is worth waiting for.
    if (DEV) server.closeAllConnections();
    if (!(await settlesWithin(closed, SHUTDOWN_GRACE_MS))) {
      say(`requests still open after ${SHUTDOWN_GRACE_MS / 1000} s: closing them`);
      server.closeAllConnections();
    }
    await settlesWithin(app.close(), 5_000);
    process.exit(sig === "SIGINT" ? 130 : 0);
  };
  for (const sig of ["SIGTERM", "SIGINT"] as const) process.on(sig, () => void stop(sig));

  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(PORT, HOST, () => {
      server.off("error", reject);
      resolve();
    });
  });
  say(`listening on http://${HOST.includes(":") ? `[${HOST}]` : HOST}:${PORT}${DEV ? " (dev)" : ""}`);
}

main().catch((err) => {
  console.error(err instanceof Error ? (err.stack ?? err.message) : err);
  process.exit(1);
});
