import { BlockList, isIP } from "node:net";

/**
 * Which addresses an outbound fetch of a remote-chosen URL may reach. A search
 * result, a redirect or a page's link is chosen by someone else: left open,
 * it reads the cloud metadata service, the database's admin port or an
 * intranet page and hands the text to a report (SSRF). Every address a name
 * resolves to is checked, not only the first: a name with one public and one
 * private record must not win on the second try.
 */

const BLOCKED = new BlockList();
for (const [net, bits] of [
  ["0.0.0.0", 8], // "this network"; 0.0.0.0 reaches the local host on Linux
  ["10.0.0.0", 8],
  ["100.64.0.0", 10], // CGNAT: the carrier's or the cloud's internal side
  ["127.0.0.0", 8],
  ["169.254.0.0", 16], // link-local, with 169.254.169.254 the metadata service
  ["172.16.0.0", 12],
  ["192.0.0.0", 24], // IETF protocol assignments (incl. 192.0.0.192 Oracle metadata)
  ["192.0.2.0", 24],
  ["192.88.99.0", 24],
  ["192.168.0.0", 16],
  ["198.18.0.0", 15],
  ["198.51.100.0", 24],
  ["203.0.113.0", 24],
  ["224.0.0.0", 4], // multicast
  ["240.0.0.0", 4], // reserved, with 255.255.255.255 broadcast
] as const) {
  BLOCKED.addSubnet(net, bits, "ipv4");
}
for (const [net, bits] of [
  ["::", 128], // unspecified
  ["::1", 128],
  ["::", 96], // IPv4-compatible (deprecated): checked through its IPv4 too
  ["64:ff9b:1::", 48], // local-use NAT64
  ["100::", 64], // discard-only
  ["2001:db8::", 32], // documentation
  ["fc00::", 7], // unique local, with fd00:ec2::254 the AWS metadata service
  ["fe80::", 10], // link-local
  ["fec0::", 10], // site-local (deprecated)
  ["ff00::", 8], // multicast
] as const) {
  BLOCKED.addSubnet(net, bits, "ipv6");
}

/** The IPv4 address an IPv6 form carries (mapped ::ffff:a.b.c.d, NAT64 64:ff9b::/96, 6to4 2002::/16), if any. */
export function embeddedIPv4(ip: string): string | null {
  const words = ipv6Words(ip);
  if (!words) return null;
  const v4 = (hi: number, lo: number) => `${hi >> 8}.${hi & 0xff}.${lo >> 8}.${lo & 0xff}`;
  const zeros = (from: number, to: number) => words.slice(from, to).every((w) => w === 0);
  if (zeros(0, 5) && words[5] === 0xffff) return v4(words[6]!, words[7]!);
  if (words[0] === 0x64 && words[1] === 0xff9b && zeros(2, 6)) return v4(words[6]!, words[7]!);
  if (words[0] === 0x2002) return v4(words[1]!, words[2]!);
  return null;
}

/** The eight 16-bit words of an IPv6 address (with or without an embedded dotted quad), or null. */
function ipv6Words(ip: string): number[] | null {
  if (isIP(ip) !== 6) return null;
  let text = ip.replace(/%.*$/, "").toLowerCase();
  const quad = /(\d+)\.(\d+)\.(\d+)\.(\d+)$/.exec(text);
  if (quad) {
    const [a, b, c, d] = quad.slice(1).map(Number) as [number, number, number, number];
    text = `${text.slice(0, quad.index)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head, tail] = text.split("::") as [string, string | undefined];
  const part = (s: string | undefined) => (s ? s.split(":").map((w) => parseInt(w, 16)) : []);
  const left = part(head);
  const right = part(tail);
  const fill = tail === undefined ? [] : new Array<number>(8 - left.length - right.length).fill(0);
  const words = [...left, ...fill, ...right];
  return words.length === 8 ? words : null;
}

/** Why an address may not be reached by a remote-chosen URL, or null when it may. */
export function blockedReason(ip: string): string | null {
  const family = isIP(ip);
  if (family === 0) return "not an IP address";
  if (family === 4) return BLOCKED.check(ip, "ipv4") ? "private or reserved IPv4" : null;
  const inner = embeddedIPv4(ip);
  if (inner && BLOCKED.check(inner, "ipv4")) return "IPv6 form of a private or reserved IPv4";
  return BLOCKED.check(ip.replace(/%.*$/, ""), "ipv6") ? "private or reserved IPv6" : null;
}
