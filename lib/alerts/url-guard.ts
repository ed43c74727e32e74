import dns from "node:dns";
import net from "node:net";
import os from "node:os";
import ipaddr from "ipaddr.js";
import { webhooksAllowPrivate } from "@/lib/config/env";

// SSRF guard of webhook targets: an operator-registered URL may reach public unicast addresses only, never the
// service's own network or this host (README "Prepaid authorizations and balance alerts" lists the ranges). Checked
// when the endpoint is registered AND on every connection (the lookup hook below, and delivery.ts checks the address
// the socket actually connected to), so a DNS name that later resolves to 127.0.0.1 (rebinding) is refused too.
// WEBHOOKS_ALLOW_PRIVATE=1 lifts it for tests and local development.

export function privateTargetsAllowed(): boolean {
  return webhooksAllowPrivate();
}

// ipaddr.js names the special-purpose ranges (IANA registries); everything but its "unicast" is refused. For IPv6 that
// name is only its default, so a target must also lie in global unicast 2000::/3: that refuses the IPv4-compatible
// ::a.b.c.d (deprecated; ::/96 except :: and ::1 is "unicast" to ipaddr.js) and every range not yet allocated.
const GLOBAL_UNICAST_V6 = ipaddr.IPv6.parseCIDR("2000::/3");
// RFC 6052 well-known prefix: the translator is the public NAT64 path, so the IPv4 it carries decides. The local-use
// 64:ff9b:1::/48 (RFC 8215) is the operator's own translation domain with a prefix length of its choosing (the IPv4 sits
// at a different place for each), not globally reachable: refused whole.
const WELL_KNOWN_NAT64 = ipaddr.IPv6.parseCIDR("64:ff9b::/96");

/** The addresses of this host's interfaces, canonical: a webhook must not call back into the host itself. */
function ownAddresses(): Set<string> {
  const out = new Set<string>();
  for (const list of Object.values(os.networkInterfaces())) {
    for (const a of list ?? []) {
      const ip = parse(a.address);
      if (ip) out.add(ip.toNormalizedString());
    }
  }
  return out;
}

/**
 * Parses an address Node accepts (net.isIP), zone id dropped. IPv6 goes through the WHATWG URL serialiser first: it
 * writes every address in hex, so `::127.0.0.1` and `::7f00:1` are one address to ipaddr.js (which would read the
 * dotted form as IPv4-mapped).
 */
function parse(address: string): ipaddr.IPv4 | ipaddr.IPv6 | null {
  const bare = address.replace(/%.*$/, "");
  const family = net.isIP(bare);
  try {
    if (family === 4) return ipaddr.IPv4.parse(bare);
    if (family === 6) return ipaddr.IPv6.parse(new URL(`http://[${bare}]/`).hostname.slice(1, -1));
  } catch {
    // unparseable: refused below
  }
  return null;
}

function blockedIPv4(ip: ipaddr.IPv4, own: Set<string>): boolean {
  return ip.range() !== "unicast" || own.has(ip.toNormalizedString());
}

/** True when the address is one a webhook may not target (anything but a public unicast address of another host). */
export function isBlockedAddress(address: string): boolean {
  const ip = parse(address);
  if (!ip) return true;
  const own = ownAddresses();
  if (ip instanceof ipaddr.IPv4) return blockedIPv4(ip, own);
  const bytes = ip.toByteArray();
  const embedded = (at: number) => new ipaddr.IPv4(bytes.slice(at, at + 4));
  switch (ip.range()) {
    case "ipv4Mapped": // ::ffff:a.b.c.d is a.b.c.d
      return blockedIPv4(embedded(12), own);
    case "rfc6052":
      return !ip.match(WELL_KNOWN_NAT64) || blockedIPv4(embedded(12), own);
    case "6to4": // 2002:AABB:CCDD::/48 tunnels to AA.BB.CC.DD
      return blockedIPv4(embedded(2), own);
    case "unicast":
      return !ip.match(GLOBAL_UNICAST_V6) || own.has(ip.toNormalizedString());
    default:
      return true;
  }
}

export class WebhookTargetError extends Error {}

/** How a refusal names the address: the message operators see in `last_error` and on registration. */
export const NOT_PUBLIC =
  "a non-public address (loopback, private, link-local, reserved, documentation or this host's own)";

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
      `${host} resolves to ${blocked}, ${NOT_PUBLIC} (set WEBHOOKS_ALLOW_PRIVATE=1 only for tests and development)`,
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
        new Error(`${hostname} resolves to no public address (only loopback, private, reserved or this host's own)`),
        { code: "EBLOCKED" },
      );
      return callback(refused, []);
    }
    if (options.all) return callback(null, allowed);
    callback(null, allowed[0].address, allowed[0].family);
  });
}
