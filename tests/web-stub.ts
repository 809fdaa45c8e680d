import http from "node:http";
import type { AddressInfo } from "node:net";

/** A request a stub received, as the test asserts it. */
export interface StubRequest {
  method: string;
  path: string;
  url: URL;
  headers: http.IncomingHttpHeaders;
  body: string;
}

export interface WebStub {
  /** `http://127.0.0.1:<port>` (or `http://[::1]:<port>`). */
  origin: string;
  port: number;
  requests: StubRequest[];
  /** Open connections accepted so far (a refused fetch opens none). */
  connections: number;
  close(): Promise<void>;
}

/**
 * A local HTTP server on loopback that records every request and answers with
 * `handler`: a search provider's API shape, a page, a redirect, a stall.
 */
export async function startWebStub(
  handler: (req: StubRequest, res: http.ServerResponse) => void | Promise<void>,
  host = "127.0.0.1",
): Promise<WebStub> {
  const requests: StubRequest[] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const url = new URL(req.url ?? "/", `http://${req.headers.host ?? "stub"}`);
      const recorded = {
        method: req.method ?? "GET",
        path: url.pathname,
        url,
        headers: req.headers,
        body: Buffer.concat(chunks).toString("utf8"),
      };
      requests.push(recorded);
      Promise.resolve(handler(recorded, res)).catch(() => res.destroy());
    });
  });
  const stub = { connections: 0 } as WebStub;
  server.on("connection", () => stub.connections++);
  await new Promise<void>((resolve) => server.listen(0, host, resolve));
  const port = (server.address() as AddressInfo).port;
  return Object.assign(stub, {
    origin: host.includes(":") ? `http://[${host}]:${port}` : `http://${host}:${port}`,
    port,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  });
}

/** Answers JSON with `status`. */
export function sendJson(
  res: http.ServerResponse,
  body: unknown,
  status = 200,
  headers: Record<string, string> = {},
): void {
  res.writeHead(status, { "content-type": "application/json", ...headers });
  res.end(JSON.stringify(body));
}
