import http from "node:http";
import type { AddressInfo } from "node:net";
import { Readable } from "node:stream";

type Handler = (req: Request, segment: { params: Promise<Record<string, string>> }) => Promise<Response>;
export interface RouteEntry {
  /** Path pattern with `:name` segments, e.g. "/api/ap/threads/:id/runs". */
  path: string;
  methods: Partial<Record<string, Handler>>;
}

/**
 * A real HTTP server in front of route handler modules, for tests whose client
 * is an SDK that speaks HTTP (the LangGraph SDK). The handlers run exactly as
 * under Next: a web Request in, a Response out, params as a promise.
 */
export async function serveRoutes(routes: RouteEntry[]): Promise<{ url: string; close: () => Promise<void> }> {
  const compiled = routes.map((r) => ({
    ...r,
    re: new RegExp(`^${r.path.replace(/:(\w+)/g, (_, n: string) => `(?<${n}>[^/]+)`)}$`),
  }));
  const server = http.createServer(async (req, res) => {
    try {
      const url = new URL(req.url ?? "/", "http://127.0.0.1");
      const match = compiled.map((r) => ({ r, m: r.re.exec(url.pathname) })).find((x) => x.m);
      const handler = match?.r.methods[req.method ?? "GET"];
      if (!match || !handler) {
        res
          .writeHead(404, { "content-type": "application/json" })
          .end('{"error":{"code":"not_found","message":"no route"}}');
        return;
      }
      const params = Object.fromEntries(
        Object.entries(match.m!.groups ?? {}).map(([k, v]) => [k, decodeURIComponent(v)]),
      );
      const abort = new AbortController();
      res.on("close", () => abort.abort());
      const hasBody = !["GET", "HEAD"].includes(req.method ?? "GET");
      const request = new Request(url, {
        method: req.method,
        headers: Object.entries(req.headers).flatMap(([k, v]) =>
          Array.isArray(v)
            ? v.map((x) => [k, x] as [string, string])
            : v === undefined
              ? []
              : [[k, v] as [string, string]],
        ),
        body: hasBody ? (Readable.toWeb(req) as ReadableStream) : undefined,
        signal: abort.signal,
        // @ts-expect-error undici needs it for a streamed body; not in the DOM types
        duplex: "half",
      });
      const response = await handler(request, { params: Promise.resolve(params) });
      res.writeHead(response.status, Object.fromEntries(response.headers));
      if (!response.body) return void res.end();
      // Streamed chunk by chunk: an SSE feed never ends on its own.
      const reader = response.body.getReader();
      res.on("close", () => void reader.cancel().catch(() => {}));
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        res.write(value);
      }
      res.end();
    } catch (err) {
      if (!res.headersSent) res.writeHead(500, { "content-type": "text/plain" });
      res.end(String(err));
    }
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
