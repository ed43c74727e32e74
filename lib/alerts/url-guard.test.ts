import dns from "node:dns";
import os from "node:os";
import { afterEach, describe, expect, it, vi } from "vitest";
import { checkWebhookUrl, guardedLookup, isBlockedAddress, WebhookTargetError } from "./url-guard";

/** Addresses a webhook may never target, with why (README "Prepaid authorizations and balance alerts"). */
const BLOCKED: [address: string, why: string][] = [
  ["0.0.0.0", "this network"],
  ["0.1.2.3", "this network"],
  ["10.1.2.3", "private"],
  ["100.64.0.1", "CGNAT"],
  ["100.127.255.254", "CGNAT"],
  ["127.0.0.1", "loopback"],
  ["127.1.2.3", "loopback"],
  ["169.254.169.254", "link-local (cloud metadata)"],
  ["172.16.0.1", "private"],
  ["172.31.255.255", "private"],
  ["192.0.0.8", "IETF protocol assignments"],
  ["192.0.2.1", "documentation (TEST-NET-1)"],
  ["192.88.99.1", "6to4 relay anycast (deprecated)"],
  ["192.168.1.1", "private"],
  ["198.18.0.1", "benchmarking"],
  ["198.19.255.254", "benchmarking"],
  ["198.51.100.7", "documentation (TEST-NET-2)"],
  ["203.0.113.9", "documentation (TEST-NET-3)"],
  ["224.0.0.1", "multicast"],
  ["239.255.255.250", "multicast"],
  ["240.0.0.1", "reserved"],
  ["255.255.255.255", "broadcast"],
  ["::", "unspecified"],
  ["::1", "loopback"],
  ["::127.0.0.1", "IPv4-compatible (deprecated) of loopback"],
  ["::7f00:1", "IPv4-compatible, hex form"],
  ["::8.8.8.8", "IPv4-compatible, even of a public address"],
  ["::2", "IPv4-compatible 0.0.0.2"],
  ["::ffff:127.0.0.1", "IPv4-mapped loopback"],
  ["::ffff:7f00:1", "IPv4-mapped loopback, hex form"],
  ["::FFFF:10.0.0.1", "IPv4-mapped private"],
  ["::ffff:169.254.169.254", "IPv4-mapped metadata"],
  ["::ffff:0:7f00:1", "IPv4-translated (SIIT) loopback"],
  ["::ffff:0:8.8.8.8", "IPv4-translated, even of a public address"],
  ["2002:7f00:1::", "6to4 of 127.0.0.1"],
  ["2002:a00:1::1", "6to4 of 10.0.0.1"],
  ["2002:a9fe:a9fe::", "6to4 of 169.254.169.254"],
  ["2002:c000:201::", "6to4 of documentation 192.0.2.1"],
  ["64:ff9b::7f00:1", "well-known NAT64 of 127.0.0.1"],
  ["64:ff9b::10.0.0.1", "well-known NAT64 of 10.0.0.1"],
  ["64:ff9b::a9fe:a9fe", "well-known NAT64 of 169.254.169.254"],
  ["64:ff9b:1::a00:1", "local-use NAT64"],
  ["64:ff9b:1::808:808", "local-use NAT64 (the operator's own translator)"],
  ["fec0::1", "site-local (deprecated)"],
  ["feff:ffff::1", "site-local, upper end"],
  ["fc00::1", "unique-local"],
  ["fd12:3456::1", "unique-local"],
  ["fe80::1", "link-local"],
  ["fe80::1%eth0", "link-local with a zone"],
  ["ff02::1", "multicast"],
  ["ff0e::1", "multicast, global scope"],
  ["2001:db8::1", "documentation"],
  ["2001:db8:ffff:ffff::1", "documentation"],
  ["3fff::1", "documentation (RFC 9637)"],
  ["3fff:fff:ffff::1", "documentation (RFC 9637), upper end"],
  ["2001:2::1", "benchmarking"],
  ["2001::1", "Teredo"],
  ["2001:10::1", "ORCHID (deprecated)"],
  ["100::1", "discard-only"],
  ["5f00::1", "SRv6 SIDs"],
  ["4000::1", "not global unicast (reserved by IETF)"],
  ["e000::1", "not global unicast (reserved by IETF)"],
  ["not-an-ip", "not an address"],
];

/** Public addresses, also in the embedded forms that are allowed to carry them. */
const ALLOWED = [
  "8.8.8.8",
  "1.1.1.1",
  "172.32.0.1",
  "100.128.0.1",
  "192.0.3.1",
  "198.20.0.1",
  "203.0.114.1",
  "223.255.255.254",
  "::ffff:8.8.8.8",
  "::ffff:808:808",
  "64:ff9b::808:808",
  "64:ff9b::1.1.1.1",
  "2002:808:808::1",
  "2606:4700:4700::1111",
  "2001:4860:4860::8888",
  "2a00:1450:4001:80b::200e",
  "3fff:1000::1",
];

describe("webhook target guard", () => {
  afterEach(() => {
    vi.unstubAllEnvs();
    vi.restoreAllMocks();
  });

  it.each(BLOCKED)("blocks %s (%s)", (address) => {
    expect(isBlockedAddress(address)).toBe(true);
  });

  it.each(ALLOWED)("allows the public address %s", (address) => {
    expect(isBlockedAddress(address)).toBe(false);
  });

  it("blocks every address of this host's own interfaces", () => {
    const own = Object.values(os.networkInterfaces())
      .flat()
      .map((a) => a!.address);
    expect(own.length).toBeGreaterThan(0);
    for (const address of own) expect(isBlockedAddress(address), address).toBe(true);
  });

  it("blocks this host's own public addresses, also in their mapped, NAT64 and 6to4 forms", () => {
    const iface = (address: string, family: "IPv4" | "IPv6"): os.NetworkInterfaceInfo =>
      ({ address, family, netmask: "", mac: "", internal: false, cidr: null, scopeid: 0 }) as os.NetworkInterfaceInfo;
    vi.spyOn(os, "networkInterfaces").mockReturnValue({
      eth1: [iface("81.2.69.160", "IPv4"), iface("2a01:4f8:c0c:1234::2", "IPv6")],
    });
    for (const address of [
      "81.2.69.160",
      "::ffff:81.2.69.160",
      "64:ff9b::5102:45a0",
      "2002:5102:45a0::1",
      "2a01:4f8:c0c:1234::2",
      "2a01:04f8:0c0c:1234:0:0:0:2",
    ]) {
      expect(isBlockedAddress(address), address).toBe(true);
    }
    expect(isBlockedAddress("81.2.69.161")).toBe(false);
    expect(isBlockedAddress("2a01:4f8:c0c:1234::3")).toBe(false);
  });

  it("refuses private targets unless WEBHOOKS_ALLOW_PRIVATE=1", async () => {
    vi.stubEnv("WEBHOOKS_ALLOW_PRIVATE", undefined);
    for (const url of [
      "http://127.0.0.1:8080/hook",
      "http://[::1]/hook",
      "https://localhost/hook",
      "http://169.254.169.254/latest",
      "http://10.0.0.5/",
      "http://0x7f.1/",
      "http://[::127.0.0.1]/",
      "http://[::ffff:0:7f00:1]/",
      "http://[2002:7f00:1::]/",
      "http://[64:ff9b:1::a00:1]/",
      "http://[fec0::1]/",
      "https://192.0.2.10/",
      "https://[2001:db8::10]/",
    ]) {
      await expect(checkWebhookUrl(url), url).rejects.toThrow(WebhookTargetError);
    }
    await expect(checkWebhookUrl("https://8.8.8.8/hook")).resolves.toBeInstanceOf(URL);
    await expect(checkWebhookUrl("https://[64:ff9b::808:808]/hook")).resolves.toBeInstanceOf(URL);
    vi.stubEnv("WEBHOOKS_ALLOW_PRIVATE", "1");
    await expect(checkWebhookUrl("http://127.0.0.1:8080/hook")).resolves.toBeInstanceOf(URL);
  });

  it("answers a connection's lookup with the public addresses only, and refuses a name with none (DNS rebinding)", async () => {
    vi.stubEnv("WEBHOOKS_ALLOW_PRIVATE", undefined);
    let answer: dns.LookupAddress[] = [];
    vi.spyOn(dns, "lookup").mockImplementation(((_host: string, _options: unknown, callback: never) =>
      (callback as (e: null, a: dns.LookupAddress[]) => void)(null, answer)) as never);
    const lookup = (all: boolean) =>
      new Promise<{ err: NodeJS.ErrnoException | null; address: unknown }>((resolve) =>
        guardedLookup("rebind.example", { all }, (err, address) => resolve({ err, address })),
      );

    answer = [
      { address: "::ffff:0:7f00:1", family: 6 },
      { address: "2002:7f00:1::", family: 6 },
      { address: "64:ff9b:1::a00:1", family: 6 },
      { address: "192.0.2.1", family: 4 },
    ];
    for (const all of [true, false]) {
      const { err } = await lookup(all);
      expect(err?.code).toBe("EBLOCKED");
    }
    answer = [
      { address: "::7f00:1", family: 6 },
      { address: "8.8.8.8", family: 4 },
    ];
    expect(await lookup(true)).toEqual({ err: null, address: [{ address: "8.8.8.8", family: 4 }] });
    expect(await lookup(false)).toEqual({ err: null, address: "8.8.8.8" });
  });

  it("refuses other schemes and URLs with credentials", async () => {
    vi.stubEnv("WEBHOOKS_ALLOW_PRIVATE", "1");
    await expect(checkWebhookUrl("ftp://example.com/")).rejects.toThrow(WebhookTargetError);
    await expect(checkWebhookUrl("file:///etc/passwd")).rejects.toThrow(WebhookTargetError);
    await expect(checkWebhookUrl("https://u:p@example.com/")).rejects.toThrow(WebhookTargetError);
    await expect(checkWebhookUrl("not a url")).rejects.toThrow(WebhookTargetError);
  });
});
