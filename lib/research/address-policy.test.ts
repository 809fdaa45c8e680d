import { describe, expect, it } from "vitest";
import { blockedReason } from "./address-policy";

describe("address policy", () => {
  it("refuses loopback, private, link-local, CGNAT, multicast, unspecified, metadata and their IPv6 forms", () => {
    for (const ip of [
      "127.0.0.1",
      "127.9.9.9",
      "10.0.0.1",
      "172.16.0.1",
      "172.31.255.255",
      "192.168.1.1",
      "169.254.169.254",
      "100.64.0.1",
      "100.127.255.254",
      "0.0.0.0",
      "0.1.2.3",
      "224.0.0.1",
      "239.255.255.250",
      "255.255.255.255",
      "192.0.0.192",
      "::",
      "::1",
      "fe80::1",
      "fc00::1",
      "fd00:ec2::254",
      "ff02::1",
      "::ffff:127.0.0.1",
      "::ffff:7f00:1",
      "::ffff:10.0.0.1",
      "::ffff:169.254.169.254",
      "64:ff9b::a9fe:a9fe",
      "2002:7f00:1::1",
      "::127.0.0.1",
    ]) {
      expect(blockedReason(ip), ip).not.toBeNull();
    }
  });

  it("lets public addresses through, in either family and in mapped form", () => {
    for (const ip of [
      "93.184.216.34",
      "8.8.8.8",
      "172.32.0.1",
      "100.128.0.1",
      "2606:4700::1111",
      "::ffff:8.8.8.8",
      "2a00:1450:4001::200e",
    ]) {
      expect(blockedReason(ip), ip).toBeNull();
    }
    expect(blockedReason("example.org")).toBe("not an IP address");
  });
});
