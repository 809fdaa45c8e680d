import http from "node:http";
import type { AddressInfo } from "node:net";
import { Readable } from "node:stream";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import * as authRoute from "@/app/api/auth/[...all]/route";
import * as unsubscribeRoute from "@/app/api/email/unsubscribe/route";
import { ORIGIN } from "@/tests/helpers";
import {
  bodyCapFor,
  capNodeRequestBody,
  MAX_AUTH_BODY_BYTES,
  MAX_BODY_BYTES,
  MAX_UNSUBSCRIBE_BODY_BYTES,
} from "./body-cap";

// A real socket with the same capNodeRequestBody() scripts/server.ts runs before Next,
// then into route handlers that are outside route() (better-auth, unsubscribe). The
// body reaches the handler as a stream, and every byte the handler receives is counted.

const MIB = 1024 * 1024;
let port = 0;
let server: http.Server;
/** Bytes of request bodies that reached a handler, by path. */
const delivered = new Map<string, number>();

beforeAll(async () => {
  server = http.createServer((req, res) => {
    if (!capNodeRequestBody(req, res)) return;
    const path = (req.url ?? "/").split("?")[0];
    const handler = path === "/api/email/unsubscribe" ? unsubscribeRoute.POST : authRoute.POST;
    const counted = (Readable.toWeb(req) as unknown as ReadableStream<Uint8Array>).pipeThrough(
      new TransformStream<Uint8Array, Uint8Array>({
        transform(chunk, c) {
          delivered.set(path, (delivered.get(path) ?? 0) + chunk.byteLength);
          c.enqueue(chunk);
        },
      }),
    );
    const headers = new Headers();
    for (const [k, v] of Object.entries(req.headers))
      if (v !== undefined) headers.set(k, Array.isArray(v) ? v.join(", ") : v);
    void handler(
      new Request(`${ORIGIN}${req.url}`, { method: req.method, headers, body: counted, duplex: "half" } as RequestInit),
    )
      .then(async (out) => {
        if (res.headersSent) return;
        res.writeHead(out.status, Object.fromEntries(out.headers));
        res.end(Buffer.from(await out.arrayBuffer()));
      })
      .catch(() => res.destroy());
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  port = (server.address() as AddressInfo).port;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise((r) => server.close(r));
});

interface Sent {
  status: number;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- error bodies
  json: any;
  /** Bytes the client managed to write before the answer came. */
  written: number;
}

/**
 * Streams `total` bytes of `fill` to the server, with or without Content-Length,
 * and stops writing as soon as an answer arrives (as a client would).
 */
function send(
  path: string,
  total: number,
  opts: { declareLength: boolean; contentType: string; fill?: string },
): Promise<Sent> {
  return new Promise((resolve, reject) => {
    const chunk = Buffer.alloc(64 * 1024, opts.fill ?? "a");
    let written = 0;
    let answered = false;
    const req = http.request({
      host: "127.0.0.1",
      port,
      path,
      method: "POST",
      headers: {
        origin: ORIGIN,
        "content-type": opts.contentType,
        ...(opts.declareLength ? { "content-length": String(total) } : { "transfer-encoding": "chunked" }),
      },
    });
    req.on("response", (res) => {
      answered = true;
      const parts: Buffer[] = [];
      res.on("data", (d: Buffer) => parts.push(d));
      res.on("end", () => {
        const text = Buffer.concat(parts).toString("utf8");
        let json: unknown = text;
        try {
          json = JSON.parse(text);
        } catch {
          /* not JSON */
        }
        resolve({ status: res.statusCode ?? 0, json, written });
        req.destroy();
      });
    });
    // The server closes the connection on a refusal: writes after that fail, which is the point.
    req.on("error", (err) => {
      if (!answered) reject(err);
    });
    const pump = () => {
      while (!answered && written < total) {
        const n = Math.min(chunk.length, total - written);
        written += n;
        if (!req.write(n === chunk.length ? chunk : chunk.subarray(0, n))) return void req.once("drain", pump);
      }
      if (!answered) req.end();
    };
    pump();
  });
}

describe("request bodies are capped before they are read", () => {
  it("caps unsubscribe and auth at a few KiB and every other route at MAX_BODY_BYTES", () => {
    expect(bodyCapFor("/api/email/unsubscribe")).toBe(MAX_UNSUBSCRIBE_BODY_BYTES);
    expect(bodyCapFor("/api/auth/sign-in/email")).toBe(MAX_AUTH_BODY_BYTES);
    expect(bodyCapFor("/api/conversations")).toBe(MAX_BODY_BYTES);
    expect(MAX_UNSUBSCRIBE_BODY_BYTES).toBeLessThanOrEqual(16 * 1024);
  });

  it("unsubscribe with a declared 30 MiB body: 413 before a byte reaches the handler", async () => {
    delivered.clear();
    const r = await send("/api/email/unsubscribe", 30 * MIB, {
      declareLength: true,
      contentType: "application/x-www-form-urlencoded",
    });
    expect(r.status).toBe(413);
    expect(r.json.error).toMatchObject({ code: "payload_too_large", field: "body" });
    expect(delivered.get("/api/email/unsubscribe") ?? 0).toBe(0);
    expect(r.written).toBeLessThan(30 * MIB);
  });

  it("unsubscribe with a streamed 30 MiB body (no Content-Length): 413 once the cap is passed, the rest never read", async () => {
    delivered.clear();
    const r = await send("/api/email/unsubscribe", 30 * MIB, {
      declareLength: false,
      contentType: "application/x-www-form-urlencoded",
    });
    expect(r.status).toBe(413);
    expect(r.json.error).toMatchObject({ code: "payload_too_large", field: "body" });
    expect(delivered.get("/api/email/unsubscribe") ?? 0).toBeLessThanOrEqual(MAX_UNSUBSCRIBE_BODY_BYTES);
    expect(r.written).toBeLessThan(30 * MIB);
  });

  it("a better-auth route with an oversized body: 413, declared or streamed", async () => {
    for (const declareLength of [true, false]) {
      delivered.clear();
      const r = await send("/api/auth/sign-in/email", 1 * MIB, { declareLength, contentType: "application/json" });
      expect(r.status, `declareLength ${declareLength}`).toBe(413);
      expect(r.json.error).toMatchObject({ code: "payload_too_large", field: "body" });
      expect(delivered.get("/api/auth/sign-in/email") ?? 0).toBeLessThanOrEqual(MAX_AUTH_BODY_BYTES);
    }
  });

  it("a body under the cap still reaches the handler whole", async () => {
    delivered.clear();
    const form = "token=not-a-real-token&List-Unsubscribe=One-Click";
    const r = await new Promise<number>((resolve, reject) => {
      const req = http.request(
        {
          host: "127.0.0.1",
          port,
          path: "/api/email/unsubscribe",
          method: "POST",
          headers: { "content-type": "application/x-www-form-urlencoded" },
        },
        (res) => {
          res.resume();
          resolve(res.statusCode ?? 0);
        },
      );
      req.on("error", reject);
      req.end(form);
    });
    expect(r).toBe(404);
    expect(delivered.get("/api/email/unsubscribe")).toBe(form.length);
  });

  it("the unsubscribe handler itself reads through a capped reader (served without the web process)", async () => {
    let pulled = 0;
    const body = new ReadableStream<Uint8Array>({
      pull(c) {
        if (pulled >= 30 * MIB) return c.close();
        pulled += 64 * 1024;
        c.enqueue(new Uint8Array(64 * 1024).fill(97));
      },
    });
    const res = await unsubscribeRoute.POST(
      new Request(`${ORIGIN}/api/email/unsubscribe`, { method: "POST", body, duplex: "half" } as RequestInit),
    );
    expect(res.status).toBe(413);
    expect(((await res.json()) as { error: unknown }).error).toMatchObject({
      code: "payload_too_large",
      field: "body",
    });
    // A stream is pulled a little ahead of the reader; nowhere near the 30 MiB.
    expect(pulled).toBeLessThan(1 * MIB);
  });
});
