import dns from "node:dns";
import net from "node:net";

// SSRF guard of webhook targets: an operator-registered URL must not reach the service's own network (loopback,
// private, link-local incl. cloud metadata 169.254.169.254, CGNAT, unique-local, multicast, unspecified). Checked
// when the endpoint is registered AND on every connection (the lookup hook below), so a DNS name that later
// resolves to 127.0.0.1 (rebinding) is refused too. WEBHOOKS_ALLOW_PRIVATE=1 lifts it for tests and local development.

export function privateTargetsAllowed(): boolean {
  return process.env.WEBHOOKS_ALLOW_PRIVATE === "1";
}

const BLOCKED = new net.BlockList();
for (const [prefix, bits] of [
  ["0.0.0.0", 8],
  ["10.0.0.0", 8],
  ["100.64.0.0", 10],
  ["127.0.0.0", 8],
  ["169.254.0.0", 16],
  ["172.16.0.0", 12],
  ["192.0.0.0", 24],
  ["192.168.0.0", 16],
  ["198.18.0.0", 15],
  ["224.0.0.0", 4],
  ["240.0.0.0", 4],
] as const) {
  BLOCKED.addSubnet(prefix, bits, "ipv4");
}
for (const [prefix, bits] of [
  ["::", 128],
  ["::1", 128],
  ["fc00::", 7],
  ["fe80::", 10],
  ["ff00::", 8],
  ["64:ff9b::", 96],
] as const) {
  BLOCKED.addSubnet(prefix, bits, "ipv6");
}

/** True when the address is in a range a webhook may not target. */
export function isBlockedAddress(address: string): boolean {
  const family = net.isIP(address);
  if (family === 0) return true;
  if (family === 6) {
    // IPv4-mapped (::ffff:127.0.0.1) is judged as the IPv4 address it maps.
    const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
    if (mapped) return BLOCKED.check(mapped[1], "ipv4");
    return BLOCKED.check(address, "ipv6");
  }
  return BLOCKED.check(address, "ipv4");
}

export class WebhookTargetError extends Error {}

/** Parses and checks a webhook URL: http(s), no credentials, and (unless allowed) a public host. */
export async function checkWebhookUrl(raw: string): Promise<URL> {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new WebhookTargetError(`"${raw}" is not a URL`);
  }
  if (url.protocol !== "https:" && url.protocol !== "http:")
    throw new WebhookTargetError("a webhook URL is http:// or https://");
  if (url.username || url.password) throw new WebhookTargetError("a webhook URL must not carry credentials");
  if (privateTargetsAllowed()) return url;
  const host = url.hostname.replace(/^\[|\]$/g, "");
  const addresses = net.isIP(host)
    ? [host]
    : (await dns.promises.lookup(host, { all: true }).catch(() => [])).map((a) => a.address);
  if (addresses.length === 0) throw new WebhookTargetError(`${host} does not resolve`);
  const blocked = addresses.find(isBlockedAddress);
  if (blocked)
    throw new WebhookTargetError(
      `${host} resolves to ${blocked}, a loopback, private or link-local address (set WEBHOOKS_ALLOW_PRIVATE=1 only for tests and development)`,
    );
  return url;
}

type LookupCallback = (
  err: NodeJS.ErrnoException | null,
  address: string | dns.LookupAddress[],
  family?: number,
) => void;

/** dns.lookup for http.request: answers only public addresses, so the connection itself is guarded. */
export function guardedLookup(hostname: string, options: dns.LookupOptions, callback: LookupCallback): void {
  dns.lookup(hostname, { ...options, all: true }, (err, addresses) => {
    if (err) return callback(err, []);
    const list = addresses as dns.LookupAddress[];
    const allowed = privateTargetsAllowed() ? list : list.filter((a) => !isBlockedAddress(a.address));
    if (allowed.length === 0) {
      const refused = Object.assign(
        new Error(`${hostname} resolves only to loopback, private or link-local addresses`),
        { code: "EBLOCKED" },
      );
      return callback(refused, []);
    }
    if (options.all) return callback(null, allowed);
    callback(null, allowed[0].address, allowed[0].family);
  });
}
