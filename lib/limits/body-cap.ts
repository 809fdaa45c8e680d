import type { IncomingMessage, ServerResponse } from "node:http";
import { ApiError } from "@/lib/errors/api-error";

/**
 * Request body caps. A body is refused before it is read, on every route: the web
 * process (scripts/server.ts) checks Content-Length and counts streamed bytes before
 * Next or a handler sees them, and the routes outside `route()` read through
 * `readCapped` too, so they stay bounded when served some other way.
 */

/** Whole-body cap of every route; fields have their own zod limits below it. */
export const MAX_BODY_BYTES = 256 * 1024;
/** better-auth's endpoints take an email, a name, a password or a token: a few hundred bytes. */
export const MAX_AUTH_BODY_BYTES = 16 * 1024;
/** A one-click unsubscribe posts `List-Unsubscribe=One-Click`; the confirm form posts a token. */
export const MAX_UNSUBSCRIBE_BODY_BYTES = 4 * 1024;

/** The cap of a request path. */
export function bodyCapFor(pathname: string): number {
  if (pathname === "/api/email/unsubscribe") return MAX_UNSUBSCRIBE_BODY_BYTES;
  if (pathname === "/api/auth" || pathname.startsWith("/api/auth/")) return MAX_AUTH_BODY_BYTES;
  return MAX_BODY_BYTES;
}

export function payloadTooLarge(maxBytes: number): ApiError {
  return new ApiError("payload_too_large", `body: larger than ${maxBytes} bytes`, "body");
}

/** Reads at most `maxBytes` of a web request's body, whatever Content-Length claims (it may be absent or lie). */
export async function readCapped(req: Request, maxBytes: number): Promise<Uint8Array> {
  if (Number(req.headers.get("content-length") ?? 0) > maxBytes) throw payloadTooLarge(maxBytes);
  if (!req.body) return new Uint8Array();
  const reader = req.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > maxBytes) {
      await reader.cancel().catch(() => {});
      throw payloadTooLarge(maxBytes);
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks);
}

function refuse(res: ServerResponse, maxBytes: number): void {
  if (res.headersSent) {
    res.destroy();
    return;
  }
  // Whoever was reading the body (Next, a handler) may still try to answer: that write
  // fails, and must not reach the process as an unhandled 'error'.
  res.on("error", () => {});
  const err = payloadTooLarge(maxBytes);
  const body = JSON.stringify({ error: { code: err.code, message: err.message, field: err.field } });
  // The rest of the body is not worth reading: close instead of draining it for keep-alive.
  res.shouldKeepAlive = false;
  res.writeHead(err.status, {
    "content-type": "application/json; charset=utf-8",
    "cache-control": "no-store",
    connection: "close",
    "content-length": Buffer.byteLength(body),
  });
  res.end(body, () => res.socket?.destroy());
}

/**
 * Applies the path's cap to a Node request before anything reads it. Returns false
 * (and has answered 413) when Content-Length is already over. Otherwise the bytes
 * the socket delivers are counted as the parser hands them to the request stream,
 * whoever reads it and however it is framed (chunked, no length): past the cap the
 * rest never reaches the stream, the client gets 413 and the connection closes.
 */
export function capNodeRequestBody(
  req: IncomingMessage,
  res: ServerResponse,
  maxBytes = bodyCapFor(pathOf(req)),
): boolean {
  const declared = Number(req.headers["content-length"] ?? 0);
  if (!Number.isFinite(declared) || declared > maxBytes) {
    refuse(res, maxBytes);
    return false;
  }
  let seen = 0;
  let over = false;
  const push = req.push.bind(req);
  req.push = (chunk: unknown, encoding?: BufferEncoding): boolean => {
    if (over) return false;
    if (chunk !== null && chunk !== undefined) {
      seen += typeof chunk === "string" ? Buffer.byteLength(chunk, encoding) : (chunk as Uint8Array).byteLength;
      if (seen > maxBytes) {
        over = true;
        // Returning false pauses the socket; once the 413 is written the socket closes,
        // and a reader still waiting for the rest sees the request aborted.
        refuse(res, maxBytes);
        return false;
      }
    }
    return push(chunk, encoding);
  };
  return true;
}

function pathOf(req: IncomingMessage): string {
  const url = req.url ?? "/";
  const q = url.indexOf("?");
  return q === -1 ? url : url.slice(0, q);
}
