import { lookup as dnsLookup, type LookupAddress } from "node:dns";
import http from "node:http";
import https from "node:https";
import { isIP } from "node:net";
import { env } from "@/lib/config/env";
import pkg from "@/package.json";
import { blockedReason } from "./address-policy";

/**
 * The outbound fetcher for URLs someone else chose (search results, their
 * redirects; later webhooks): http(s) only, every address a name resolves to
 * checked (lib/research/address-policy.ts) on every hop, the connection pinned
 * to the addresses that were checked (a second DNS answer cannot swap in
 * 127.0.0.1 between the check and the connect: DNS rebinding), redirects
 * followed by hand, and the whole exchange held to a time and a size cap.
 */

/** What the fetcher tells the sites it reads, so an operator can tell Herald's reads apart (and block them in robots.txt). */
export const USER_AGENT_TOKEN = "HeraldResearch";
export function userAgent(): string {
  const site = env("BETTER_AUTH_URL");
  return `${USER_AGENT_TOKEN}/${pkg.version} (+${site ? `${site} ` : ""}web research; honours robots.txt)`;
}

export const FETCH_TIMEOUT_MS = 15_000;
/** Enough for a long article's HTML (a large Wikipedia page is about 1.5 MB); parsing more costs seconds of a worker's CPU. */
export const FETCH_MAX_BYTES = 2 * 1024 * 1024;
export const MAX_REDIRECTS = 5;

export type ResolveAll = (hostname: string) => Promise<LookupAddress[]>;

export interface SafeFetchOptions {
  signal?: AbortSignal;
  /** For the whole exchange: DNS, every hop, the body. */
  timeoutMs?: number;
  /** The body is read up to this many bytes; the connection is then closed and the body marked truncated. */
  maxBytes?: number;
  maxRedirects?: number;
  accept?: string;
  /**
   * Asked of a 2xx answer's Content-Type before its body is read: false closes
   * the connection and throws `type`, so a type nobody reads (a PDF) is not
   * downloaded up to the size cap first.
   */
  acceptType?: (contentType: string) => boolean;
  /** Default: HERALD_FETCH_ALLOW_PRIVATE. */
  allowPrivate?: boolean;
  /** Origins the operator configured (a search URL): trusted like SMTP_URL, so no address check. */
  trustedOrigins?: readonly string[];
  /** Name resolution (tests inject one); default dns.lookup with all records. */
  resolve?: ResolveAll;
  /** Called before each hop is requested (robots.txt); throw to refuse the hop. */
  beforeHop?: (url: URL) => Promise<void>;
  /** A POST (webhooks) sends `body` with `headers`; give it maxRedirects 0 so a redirect is not re-posted. */
  method?: "GET" | "POST";
  body?: string;
  headers?: Record<string, string>;
}

export interface FetchedBody {
  finalUrl: string;
  status: number;
  contentType: string;
  body: Buffer;
  truncated: boolean;
}

export type FetchRefusal =
  "scheme" | "address" | "redirects" | "status" | "timeout" | "network" | "robots" | "type" | "empty";

/** A fetch that was refused or failed; `reason` is a category safe to record, the message goes to the log. */
export class FetchError extends Error {
  override name = "FetchError";
  constructor(
    readonly reason: FetchRefusal,
    message: string,
    readonly status?: number,
    /** The refusing answer's headers (`Retry-After`), for a `status` refusal. */
    readonly headers?: Record<string, string>,
  ) {
    super(message);
  }
}

const defaultResolve: ResolveAll = (hostname) =>
  new Promise((resolve, reject) =>
    dnsLookup(hostname, { all: true, verbatim: true }, (err, addresses) => (err ? reject(err) : resolve(addresses))),
  );

/** The addresses a URL's host stands for, every one checked unless private addresses are allowed or the origin is trusted. */
async function checkedAddresses(
  url: URL,
  opts: SafeFetchOptions,
  allowPrivate: boolean,
): Promise<LookupAddress[] | null> {
  const host = url.hostname.replace(/^\[|\]$/g, "");
  const trusted = opts.trustedOrigins?.includes(url.origin) ?? false;
  const literal = isIP(host);
  if (literal) {
    const why = allowPrivate || trusted ? null : blockedReason(host);
    if (why) throw new FetchError("address", `${host}: ${why}`);
    return null; // an IP literal is connected to as it is: nothing to pin
  }
  let addresses: LookupAddress[];
  try {
    addresses = await (opts.resolve ?? defaultResolve)(host);
  } catch (err) {
    throw new FetchError("network", `${host} did not resolve (${(err as { code?: string }).code ?? "error"})`);
  }
  if (addresses.length === 0) throw new FetchError("network", `${host} has no address`);
  if (!allowPrivate && !trusted) {
    for (const a of addresses) {
      const why = blockedReason(a.address);
      if (why) throw new FetchError("address", `${host} resolves to ${a.address}: ${why}`);
    }
  }
  return addresses;
}

/** A `lookup` for the socket that answers only with the addresses already checked. */
function pinnedLookup(addresses: LookupAddress[]) {
  return (_host: string, options: { all?: boolean }, callback: (...args: unknown[]) => void) => {
    if (options?.all) callback(null, addresses);
    else callback(null, addresses[0]!.address, addresses[0]!.family);
  };
}

interface Hop {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: Buffer;
  truncated: boolean;
}

function requestOnce(
  url: URL,
  addresses: LookupAddress[] | null,
  opts: SafeFetchOptions,
  signal: AbortSignal,
): Promise<Hop> {
  const maxBytes = opts.maxBytes ?? FETCH_MAX_BYTES;
  const client = url.protocol === "https:" ? https : http;
  return new Promise<Hop>((resolve, reject) => {
    const req = client.request(
      url,
      {
        method: opts.method ?? "GET",
        agent: false, // a pooled socket could be one connected for another check
        signal,
        headers: {
          "user-agent": userAgent(),
          accept: opts.accept ?? "text/html,text/plain,text/markdown;q=0.9,*/*;q=0.1",
          "accept-encoding": "identity",
          ...opts.headers,
          ...(opts.body !== undefined ? { "content-length": String(Buffer.byteLength(opts.body)) } : {}),
        },
        ...(addresses ? { lookup: pinnedLookup(addresses) as never } : {}),
      },
      (res) => {
        const status = res.statusCode ?? 0;
        const type = String(res.headers["content-type"] ?? "").trim();
        if (status >= 200 && status <= 299 && opts.acceptType && !opts.acceptType(type)) {
          res.destroy();
          return reject(new FetchError("type", `${type || "no content type"} is not read`));
        }
        const chunks: Buffer[] = [];
        let size = 0;
        let truncated = false;
        res.on("data", (chunk: Buffer) => {
          if (truncated) return;
          const room = maxBytes - size;
          if (chunk.length >= room) {
            // At the cap: stop reading, so the rest is never downloaded.
            chunks.push(chunk.subarray(0, room));
            truncated = true;
            res.destroy();
            resolve({ status, headers: res.headers, body: Buffer.concat(chunks), truncated });
            return;
          }
          chunks.push(chunk);
          size += chunk.length;
        });
        res.on("end", () => resolve({ status, headers: res.headers, body: Buffer.concat(chunks), truncated }));
        res.on("error", reject);
      },
    );
    req.on("error", reject);
    req.end(opts.body);
  });
}

const REDIRECTS = new Set([301, 302, 303, 307, 308]);

/**
 * GETs `url` and returns its body (2xx only), following at most `maxRedirects`
 * redirects, each hop checked like the first. Throws `FetchError`.
 */
export async function safeFetch(url: string | URL, opts: SafeFetchOptions = {}): Promise<FetchedBody> {
  const allowPrivate = opts.allowPrivate ?? env("HERALD_FETCH_ALLOW_PRIVATE") === "1";
  const timeoutMs = opts.timeoutMs ?? FETCH_TIMEOUT_MS;
  const maxRedirects = opts.maxRedirects ?? MAX_REDIRECTS;
  const timeout = AbortSignal.timeout(timeoutMs);
  const signal = opts.signal ? AbortSignal.any([opts.signal, timeout]) : timeout;
  let current: URL;
  try {
    current = new URL(url);
  } catch {
    throw new FetchError("scheme", "not a URL");
  }
  for (let hop = 0; ; hop++) {
    if (current.protocol !== "http:" && current.protocol !== "https:")
      throw new FetchError("scheme", `${current.protocol} is not http(s)`);
    if (current.username || current.password) throw new FetchError("scheme", "credentials in the URL");
    const addresses = await raceAbort(checkedAddresses(current, opts, allowPrivate), signal, timeout, timeoutMs);
    if (opts.beforeHop) await raceAbort(opts.beforeHop(current), signal, timeout, timeoutMs);
    let res: Hop;
    try {
      res = await requestOnce(current, addresses, opts, signal);
    } catch (err) {
      throw asFetchError(err, signal, timeout, timeoutMs);
    }
    if (REDIRECTS.has(res.status) && typeof res.headers.location === "string") {
      if (hop >= maxRedirects) throw new FetchError("redirects", `more than ${maxRedirects} redirects`);
      try {
        current = new URL(res.headers.location, current);
      } catch {
        throw new FetchError("status", "a redirect to no URL", res.status);
      }
      continue;
    }
    if (res.status < 200 || res.status > 299) {
      const headers = Object.fromEntries(
        Object.entries(res.headers).flatMap(([k, v]) => (typeof v === "string" ? [[k, v]] : [])),
      );
      throw new FetchError("status", `answered ${res.status}`, res.status, headers);
    }
    const contentType = String(res.headers["content-type"] ?? "").trim();
    return { finalUrl: current.href, status: res.status, contentType, body: res.body, truncated: res.truncated };
  }
}

function asFetchError(err: unknown, signal: AbortSignal, timeout: AbortSignal, timeoutMs: number): unknown {
  if (err instanceof FetchError) return err;
  if (timeout.aborted) return new FetchError("timeout", `no complete answer within ${timeoutMs} ms`);
  if (signal.aborted) return signal.reason;
  const code = (err as { code?: string }).code;
  return new FetchError("network", code ?? "connection failed");
}

/** DNS and robots.txt waits count against the same deadline as the request. */
async function raceAbort<T>(
  work: Promise<T>,
  signal: AbortSignal,
  timeout: AbortSignal,
  timeoutMs: number,
): Promise<T> {
  if (signal.aborted) throw asFetchError(new Error("aborted"), signal, timeout, timeoutMs);
  let onAbort: () => void = () => {};
  const aborted = new Promise<never>((_, reject) => {
    onAbort = () => reject(asFetchError(new Error("aborted"), signal, timeout, timeoutMs));
    signal.addEventListener("abort", onAbort, { once: true });
  });
  try {
    return await Promise.race([work, aborted]);
  } finally {
    signal.removeEventListener("abort", onAbort);
  }
}
