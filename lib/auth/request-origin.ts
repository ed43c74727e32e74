import { sessionCookieName } from "./session-token";

/** https as the browser sees it: directly, or behind a TLS-terminating proxy that says so. */
export function isSecureRequest(request: Request): boolean {
  if (new URL(request.url).protocol === "https:") return true;
  return isHttpsForwardedProto(request.headers.get("x-forwarded-proto"));
}

export function isHttpsForwardedProto(value: string | null | undefined): boolean {
  return value?.split(",")[0]?.trim().toLowerCase() === "https";
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
 * Whether a browser request comes from a page of this site: its Origin names the host the request
 * was sent to (Host, or X-Forwarded-Host from a proxy: a cross-site page cannot set either without
 * a CORS preflight, which this server never grants). Without Origin, `Sec-Fetch-Site: same-origin`
 * counts; with neither, `allowMissing` decides (true for clients that are not browsers, e.g. curl).
 */
export function isSameOrigin(request: Request, options: { allowMissing: boolean }): boolean {
  const origin = request.headers.get("origin");
  if (origin === null) {
    const site = request.headers.get("sec-fetch-site");
    if (site !== null) return site === "same-origin";
    return options.allowMissing;
  }
  if (origin === "null") return false; // sandboxed frames, data: URLs, privacy redirects
  const host = request.headers.get("x-forwarded-host")?.split(",")[0]?.trim() || request.headers.get("host");
  if (!host) return false;
  try {
    const url = new URL(origin);
    return (url.protocol === "https:" || url.protocol === "http:") && url.host === host.toLowerCase();
  } catch {
    return false;
  }
}
