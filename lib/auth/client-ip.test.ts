import { describe, expect, it } from "vitest";
import {
  applyClientAddress,
  CLIENT_IP_HEADER,
  deriveClientAddress,
  normalizeAddress,
  parseTrustedProxies,
} from "./client-ip";

describe("client address", () => {
  it("without trusted proxies it is the socket, whatever the headers say", () => {
    expect(deriveClientAddress("203.0.113.9", "198.51.100.1", null)).toBe("203.0.113.9");
    expect(deriveClientAddress("::ffff:203.0.113.9", undefined, null)).toBe("203.0.113.9");
    const req = {
      socket: { remoteAddress: "203.0.113.9" },
      headers: {
        "x-forwarded-for": "1.1.1.1",
        "x-real-ip": "2.2.2.2",
        forwarded: "for=3.3.3.3",
        [CLIENT_IP_HEADER]: "4.4.4.4",
        host: "h",
      },
    };
    expect(applyClientAddress(req as never, null)).toBe("203.0.113.9");
    expect(req.headers).toEqual({ host: "h", "x-forwarded-for": "203.0.113.9", [CLIENT_IP_HEADER]: "203.0.113.9" });
  });

  it("behind trusted proxies it is the rightmost hop that is not one of them", () => {
    const trusted = parseTrustedProxies("10.0.0.0/8, 192.0.2.10");
    // Client → 192.0.2.10 → 10.1.1.1 → us; the client forged the leftmost entry.
    expect(deriveClientAddress("10.1.1.1", "6.6.6.6, 198.51.100.7, 192.0.2.10", trusted)).toBe("198.51.100.7");
    // A direct connection from outside: its header is ignored.
    expect(deriveClientAddress("198.51.100.8", "6.6.6.6", trusted)).toBe("198.51.100.8");
    // From the proxy with no header at all: the proxy is all we know.
    expect(deriveClientAddress("10.1.1.1", undefined, trusted)).toBe("10.1.1.1");
    // Every hop trusted: the leftmost.
    expect(deriveClientAddress("10.1.1.1", "10.2.2.2, 192.0.2.10", trusted)).toBe("10.2.2.2");
    // Repeated headers arrive as one joined value or an array.
    expect(deriveClientAddress("10.1.1.1", ["6.6.6.6", "198.51.100.7"], trusted)).toBe("198.51.100.7");
    // Garbage written behind a trusted hop: stop at the last address we can vouch for.
    expect(deriveClientAddress("10.1.1.1", "198.51.100.7, not-an-ip, 192.0.2.10", trusted)).toBe("192.0.2.10");
    // Ports and brackets some proxies add.
    expect(deriveClientAddress("10.1.1.1", "198.51.100.7:5123", trusted)).toBe("198.51.100.7");
    expect(deriveClientAddress("10.1.1.1", "[2001:db8::1]:443", trusted)).toBe("2001:db8::1");
  });

  it("IPv6 proxies and mapped addresses", () => {
    const trusted = parseTrustedProxies("::1,fd00::/8");
    expect(deriveClientAddress("::1", "2001:db8::5, fd00::2", trusted)).toBe("2001:db8::5");
    expect(normalizeAddress("::FFFF:127.0.0.1")).toBe("127.0.0.1");
    expect(normalizeAddress("fe80::1%eth0")).toBe("fe80::1");
    expect(normalizeAddress("unknown")).toBeNull();
  });

  it("a malformed HERALD_TRUSTED_PROXIES entry is an error, not a silent no-op", () => {
    expect(parseTrustedProxies(undefined)).toBeNull();
    expect(parseTrustedProxies(" , ")).toBeNull();
    expect(() => parseTrustedProxies("10.0.0.0/33")).toThrow(/HERALD_TRUSTED_PROXIES/);
    expect(() => parseTrustedProxies("proxy.internal")).toThrow(/HERALD_TRUSTED_PROXIES/);
    expect(() => parseTrustedProxies("10.0.0.1/8/1")).toThrow(/HERALD_TRUSTED_PROXIES/);
  });
});
