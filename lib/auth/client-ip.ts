// The client address that sign-in throttling keys on (docs/operations.md#sign-in-throttling).
//
// Route handlers never see the socket, and Next only fills X-Forwarded-For when the
// client did not send one, so any header a client can write is worthless as an
// identity. scripts/server.ts runs Next behind a plain Node server that calls
// applyClientAddress() on every request: it throws away every client-supplied
// address header and writes CLIENT_IP_HEADER from the socket — or, when the socket
// is a configured proxy (HERALD_TRUSTED_PROXIES), from the rightmost X-Forwarded-For
// hop that is not itself a trusted proxy. better-auth reads only CLIENT_IP_HEADER.

import type { IncomingMessage } from "node:http";
import { BlockList, isIP } from "node:net";

export const CLIENT_IP_HEADER = "x-herald-client-ip";

/** Headers a client could use to claim an address; none survive applyClientAddress(). */
const ADDRESS_HEADERS = ["x-forwarded-for", "x-real-ip", "forwarded", CLIENT_IP_HEADER];

/**
 * HERALD_TRUSTED_PROXIES: comma-separated IPs and CIDRs. Null when empty. A malformed
 * entry throws: a typo must not silently make every client look like the proxy.
 */
export function parseTrustedProxies(spec: string | undefined): BlockList | null {
  const entries = (spec ?? "")
    .split(",")
    .map((s) => s.trim())
    .filter(Boolean);
  if (entries.length === 0) return null;
  const list = new BlockList();
  for (const entry of entries) {
    const [addr, prefix, ...rest] = entry.split("/");
    const ip = normalizeAddress(addr ?? "");
    const family = ip ? isIP(ip) : 0;
    const bits = prefix === undefined ? null : /^\d{1,3}$/.test(prefix) ? Number(prefix) : NaN;
    if (!ip || rest.length || Number.isNaN(bits) || (bits !== null && bits > (family === 4 ? 32 : 128))) {
      throw new Error(`HERALD_TRUSTED_PROXIES: "${entry}" is not an IP address or CIDR range`);
    }
    const type = family === 4 ? "ipv4" : "ipv6";
    if (bits === null) list.addAddress(ip, type);
    else list.addSubnet(ip, bits, type);
  }
  return list;
}

/**
 * A bare IP from a socket address or one X-Forwarded-For hop: IPv4-mapped IPv6
 * becomes IPv4, brackets, ports and zone ids go. Null when it is not an address.
 */
export function normalizeAddress(raw: string): string | null {
  let s = raw.trim();
  const bracketed = /^\[([^\]]+)\](?::\d+)?$/.exec(s);
  if (bracketed) s = bracketed[1]!;
  else if (/^\d{1,3}(\.\d{1,3}){3}:\d+$/.test(s)) s = s.slice(0, s.lastIndexOf(":"));
  s = s.replace(/%.*$/, "");
  const mapped = /^::ffff:(\d{1,3}(\.\d{1,3}){3})$/i.exec(s);
  if (mapped) s = mapped[1]!;
  return isIP(s) ? s.toLowerCase() : null;
}

function isTrusted(trusted: BlockList, ip: string): boolean {
  return trusted.check(ip, isIP(ip) === 4 ? "ipv4" : "ipv6");
}

/**
 * The client's address: the socket peer, unless the peer is a trusted proxy; then
 * the rightmost X-Forwarded-For hop that is not a trusted proxy (everything left of
 * it was written by whoever the proxy talked to, so it can be forged).
 */
export function deriveClientAddress(
  socketAddress: string | undefined,
  forwardedFor: string | string[] | undefined,
  trusted: BlockList | null,
): string | null {
  const peer = socketAddress ? normalizeAddress(socketAddress) : null;
  if (!peer || !trusted || !isTrusted(trusted, peer)) return peer;
  const hops = (Array.isArray(forwardedFor) ? forwardedFor.join(",") : (forwardedFor ?? ""))
    .split(",")
    .map((h) => h.trim())
    .filter(Boolean);
  let nearest = peer;
  for (let i = hops.length - 1; i >= 0; i--) {
    const hop = normalizeAddress(hops[i]!);
    // Garbage written by a trusted hop: the last address we can vouch for is all we know.
    if (!hop) return nearest;
    if (!isTrusted(trusted, hop)) return hop;
    nearest = hop;
  }
  // Every hop is one of our proxies: the leftmost one is where the request came from.
  return nearest;
}

/**
 * Rewrites a request's address headers in place before Next sees it: client-supplied
 * ones are dropped, CLIENT_IP_HEADER and X-Forwarded-For are set to the derived address
 * (so nothing downstream can read a forged one). Returns that address.
 */
export function applyClientAddress(
  req: Pick<IncomingMessage, "headers" | "socket">,
  trusted: BlockList | null,
): string | null {
  const address = deriveClientAddress(req.socket?.remoteAddress, req.headers["x-forwarded-for"], trusted);
  for (const name of ADDRESS_HEADERS) delete req.headers[name];
  if (address) {
    req.headers[CLIENT_IP_HEADER] = address;
    req.headers["x-forwarded-for"] = address;
  }
  return address;
}
