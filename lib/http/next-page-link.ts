import { allowedHosts } from "@/lib/config/env";

// The next-page link of every cursor-paged listing (docs/contract.md §4): one origin rule and one URL shape, so a
// listing cannot drift from the others.

const HOST = /^(?:[A-Za-z0-9.-]+|\[[0-9A-Fa-f:.]+\])(?::\d{1,5})?$/;
const LOOPBACK_NAMES = ["localhost", "127.0.0.1", "[::1]"];

/**
 * The origin for nextPageUrl: PUBLIC_BASE_URL when set, else the origin the client addressed (Host
 * header, and X-Forwarded-Proto when a proxy set it), but only a host this server answers for: one of
 * `allowedHosts` (ALLOWED_HOSTS) or a loopback name on the server's own port. Any other Host would
 * let whoever sends the request choose where the client's next request (with its key) goes.
 * Otherwise the server's own listen address, which Next puts in `request.url` (never taken from Host).
 */
export function pageOrigin(
  request: Request,
  publicBaseUrl: string | undefined,
  hosts: ReadonlySet<string> = allowedHosts(),
): string {
  if (publicBaseUrl) return publicBaseUrl;
  const url = new URL(request.url);
  const host = request.headers.get("host")?.toLowerCase();
  const proto = request.headers.get("x-forwarded-proto")?.split(",")[0].trim();
  const protocol = proto === "https" || proto === "http" ? proto : url.protocol.replace(":", "");
  if (!host || !HOST.test(host)) return url.origin;
  const ownPort = url.port || (url.protocol === "https:" ? "443" : "80");
  const ownLoopback = LOOPBACK_NAMES.some(
    (name) => host === `${name}:${ownPort}` || (host === name && url.port === ""),
  );
  return hosts.has(host) || ownLoopback ? `${protocol}://${host}` : url.origin;
}

/**
 * The absolute URL of a listing's next page: `path` on `origin` (pageOrigin's), then `pageSize`, each of `filters` the
 * request gave (in that order; an empty one is absent), then `cursor`. Null without a cursor: the last page.
 */
export function nextPageLink<Q extends { pageSize: number }>(
  origin: string,
  path: `/v1/${string}`,
  query: Q,
  filters: readonly (keyof Q & string)[],
  cursor: string | undefined,
): string | null {
  if (!cursor) return null;
  const url = new URL(path, origin);
  url.searchParams.set("pageSize", String(query.pageSize));
  for (const name of filters) {
    const value = query[name];
    if (typeof value === "string" && value !== "") url.searchParams.set(name, value);
  }
  url.searchParams.set("cursor", cursor);
  return url.toString();
}
