import { publicOrigin } from "@/lib/config/env";
import { isRewrittenByEdge } from "@/lib/http/edge-token";
import { sessionCookieName } from "./session-token";

// Where a request comes from (docs/contract.md §6). X-Forwarded-* count only as lib/server/forwarded-headers.ts
// rewrote them on the HTTP server: from TRUSTED_PROXIES, else from the connection itself; headers that did not go
// through it (isRewrittenByEdge) are the client's own and are never read. PUBLIC_BASE_URL, when set, is the origin.

type HeadersLike = { get(name: string): string | null };

/**
 * https as the browser sees it: PUBLIC_BASE_URL's scheme when set, else what the connection or a trusted
 * TLS-terminating proxy says. Decides HSTS and the `__Host-`/Secure session cookie.
 */
export function isSecureHeaders(headers: HeadersLike): boolean {
  const site = publicOrigin();
  if (site) return site.protocol === "https";
  return isRewrittenByEdge(headers) && isHttpsForwardedProto(headers.get("x-forwarded-proto"));
}

export function isSecureRequest(request: Request): boolean {
  return isSecureHeaders(request.headers);
}

export function isHttpsForwardedProto(value: string | null | undefined): boolean {
  return value?.split(",")[0]?.trim().toLowerCase() === "https";
}

/**
 * The client's address: the TCP peer, or the client that TRUSTED_PROXIES name in X-Forwarded-For. null when the
 * request was not rewritten (then only a spoofable header would tell).
 */
export function clientAddress(headers: HeadersLike): string | null {
  return isRewrittenByEdge(headers) ? headers.get("x-forwarded-for") || null : null;
}

/** The host the browser addressed: PUBLIC_BASE_URL's, else a trusted proxy's X-Forwarded-Host, else Host. */
function siteHost(headers: HeadersLike): string | null {
  const site = publicOrigin();
  if (site) return site.host;
  const forwarded = isRewrittenByEdge(headers) ? headers.get("x-forwarded-host") : null;
  return (forwarded || headers.get("host"))?.toLowerCase() ?? null;
}

/**
 * The session token from a Cookie header, under the one name valid for this transport: over https
 * only `__Host-cb_session` (a `__Host-` cookie cannot be planted by a sibling subdomain or over plain
 * http), over plain http (local development) only `cb_session`. The first cookie of that name wins.
 */
export function sessionTokenFromCookies(cookieHeader: string | null, secure: boolean): string | null {
  if (!cookieHeader) return null;
  const wanted = sessionCookieName(secure);
  for (const part of cookieHeader.split(";")) {
    const eq = part.indexOf("=");
    if (eq < 0) continue;
    if (part.slice(0, eq).trim() === wanted) return decodeCookieValue(part.slice(eq + 1).trim());
  }
  return null;
}

/** A forged cookie may carry malformed percent-escapes: that is a bad credential, not a 500. */
function decodeCookieValue(value: string): string {
  try {
    return decodeURIComponent(value);
  } catch {
    return "";
  }
}

/** Methods that change state: the ones a cross-site page must not make with the user's cookie. */
export function isUnsafeMethod(method: string): boolean {
  return !["GET", "HEAD", "OPTIONS"].includes(method.toUpperCase());
}

/**
 * Whether a browser request comes from a page of this site. With PUBLIC_BASE_URL its Origin must be that origin,
 * scheme included; without, it must name the host the request was sent to (Host, or X-Forwarded-Host from a trusted
 * proxy: a cross-site page cannot set either without a CORS preflight, which this server never grants). Without
 * Origin, `Sec-Fetch-Site: same-origin` counts; with neither, `allowMissing` decides (true for clients that are not
 * browsers, e.g. curl).
 */
export function isSameOrigin(request: Request, options: { allowMissing: boolean }): boolean {
  const origin = request.headers.get("origin");
  if (origin === null) {
    const site = request.headers.get("sec-fetch-site");
    if (site !== null) return site === "same-origin";
    return options.allowMissing;
  }
  if (origin === "null") return false; // sandboxed frames, data: URLs, privacy redirects
  let url: URL;
  try {
    url = new URL(origin);
  } catch {
    return false;
  }
  if (url.protocol !== "https:" && url.protocol !== "http:") return false;
  const site = publicOrigin();
  if (site) return url.origin === site.origin;
  const host = siteHost(request.headers);
  return host !== null && url.host === host;
}

/**
 * This site's origin as the browser addressed it (PUBLIC_BASE_URL when set), for answers to that same browser. Never
 * for mailed links: those come from configuration (lib/people/mail-origin.ts).
 */
export function siteOrigin(headers: HeadersLike): string {
  const site = publicOrigin();
  if (site) return site.origin;
  return `${isSecureHeaders(headers) ? "https" : "http"}://${siteHost(headers) ?? "localhost"}`;
}
