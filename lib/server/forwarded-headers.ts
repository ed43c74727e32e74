import type { IncomingMessage } from "node:http";
import { isIP } from "node:net";
import proxyaddr from "proxy-addr";
import { publicOrigin, trustedProxies } from "@/lib/config/env";
import { EDGE_HEADER, edgeToken } from "@/lib/http/edge-token";

// Which forwarded headers count (docs/contract.md §6). X-Forwarded-For/-Host/-Proto are plain request headers: any
// client can send them, and Next.js passes a client's own on to route handlers (it fills them in from the
// connection only when they are absent). So they are rewritten here, on the HTTP server, before Next sees the
// request (lib/server/http-edge.ts): read only when the TCP peer is one of TRUSTED_PROXIES, then replaced by one
// value each; every other request loses them, and Next fills them from the connection. PUBLIC_BASE_URL, when set,
// is the site's origin: its scheme and host replace whatever was forwarded. The client address (X-Forwarded-For)
// is the peer, or behind trusted proxies the first address from the right that is not one of them.
//
// `Forwarded` (RFC 7239) is never read, and removed: a proxy that writes one family of headers passes the other
// through from the client unless it strips it, so reading both would let the client's copy win. Proxies must
// write (not append to) X-Forwarded-Host and -Proto, as nginx's proxy_set_header, Caddy and Traefik do.

const REMOVED = [
  "forwarded",
  "x-forwarded-for",
  "x-forwarded-host",
  "x-forwarded-proto",
  "x-forwarded-port",
  "x-real-ip",
];
const HOST = /^(?:[a-z0-9.-]+|\[[0-9a-f:.]+\])(?::\d{1,5})?$/;

/**
 * The value of a forwarded header that describes the client's own request. Each trusted proxy on the way either
 * wrote the header (one value) or appended its value on the right, so of `proxies` trusted hops the outermost one's
 * value is the `proxies`-th from the right (or the first, when there are fewer); whatever the client sent itself
 * lies further left and is never read.
 */
function hopValue(value: string | string[] | undefined, proxies: number, valid: (v: string) => boolean) {
  const values = (Array.isArray(value) ? value.join(",") : (value ?? "")).split(",").map((v) => v.trim().toLowerCase());
  const chosen = values[Math.max(0, values.length - proxies)];
  return chosen && valid(chosen) ? chosen : undefined;
}

/** "::ffff:192.0.2.1" (an IPv4 peer of a dual-stack socket) as "192.0.2.1". */
export function plainAddress(address: string): string {
  const mapped = /^::ffff:(\d{1,3}(?:\.\d{1,3}){3})$/i.exec(address);
  return mapped ? mapped[1] : address.toLowerCase();
}

/** Rewrites the forwarded headers of one request as described above. Runs before Next.js sees the request. */
export function rewriteForwardedHeaders(req: IncomingMessage): void {
  const headers = req.headers;
  const trust = trustedProxies();
  const peer = req.socket.remoteAddress ?? "";
  let client = plainAddress(peer);
  let proto: string | undefined;
  let host: string | undefined;
  let port: string | undefined;
  if (trust && peer && trust(peer, 0)) {
    // [peer, X-Forwarded-For from the right...], cut after the first hop that is not a trusted proxy: the client.
    const hops = proxyaddr.all(req, trust);
    const proxies = Math.max(1, hops.length - 1);
    // A proxy that wrote something else than an address ("unknown", "192.0.2.1:80"): the proxy's own stands in.
    const named = hops.filter((hop) => isIP(hop) !== 0).pop();
    client = plainAddress(named ?? peer);
    proto = hopValue(headers["x-forwarded-proto"], proxies, (v) => v === "https" || v === "http");
    host = hopValue(headers["x-forwarded-host"], proxies, (v) => HOST.test(v));
    port = hopValue(headers["x-forwarded-port"], proxies, (v) => /^\d{1,5}$/.test(v));
  }
  const site = publicOrigin();
  if (site) {
    proto = site.protocol;
    host = site.host;
    port = undefined;
  }
  for (const name of REMOVED) delete headers[name];
  if (client) headers["x-forwarded-for"] = client;
  if (proto) headers["x-forwarded-proto"] = proto;
  if (host) headers["x-forwarded-host"] = host;
  if (port) headers["x-forwarded-port"] = port;
  headers[EDGE_HEADER] = edgeToken();
}
