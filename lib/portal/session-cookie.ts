import { SESSION_TTL_SECONDS, sessionCookieName } from "@/lib/auth/session-token";

export { isSecureRequest } from "@/lib/auth/request-origin";

function cookie(name: string, value: string, maxAgeSeconds: number, secure: boolean): string {
  const parts = [`${name}=${value}`, "Path=/", `Max-Age=${maxAgeSeconds}`, "HttpOnly", "SameSite=Lax"];
  if (maxAgeSeconds === 0) parts.push("Expires=Thu, 01 Jan 1970 00:00:00 GMT");
  if (secure) parts.push("Secure");
  return parts.join("; ");
}

/** Set-Cookie for a new session: the signed token (never the key), expiring with the token. */
export function sessionSetCookie(token: string, secure: boolean): string {
  return cookie(sessionCookieName(secure), token, SESSION_TTL_SECONDS, secure);
}

/** Set-Cookie headers that remove a session under either name. */
export function sessionClearCookies(secure: boolean): string[] {
  // A `__Host-` cookie can only be set (and so cleared) with Secure; browsers ignore it otherwise.
  return secure
    ? [sessionCookieName(true), sessionCookieName(false)].map((name) => cookie(name, "", 0, true))
    : [cookie(sessionCookieName(false), "", 0, false)];
}
