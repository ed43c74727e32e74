// better-auth keeps the state of a ceremony that spans two requests (the second step of a sign-in, a passkey's
// challenge) in a signed cookie of its own. Its handler is not mounted, so the portal carries that value in its own
// short-lived cookie (lib/portal/ceremony-cookie.ts) and hands it back on the next call: these two read it from
// better-auth's answer and put it back into the headers of the call that completes the ceremony.

/** better-auth's cookies are named `better-auth.<name>` (plain http; the portal's own cookies carry the security). */
const PREFIX = "better-auth.";

/** The value of better-auth's cookie `name` set by an answer (`returnHeaders: true`), or null. */
export function authCookieValue(headers: Headers, name: string): string | null {
  for (const line of headers.getSetCookie()) {
    const pair = line.split(";", 1)[0];
    const eq = pair.indexOf("=");
    if (eq > 0 && pair.slice(0, eq).trim() === `${PREFIX}${name}`) {
      const value = pair.slice(eq + 1).trim();
      return value.length > 0 ? value : null;
    }
  }
  return null;
}

/** A Cookie header that hands better-auth back the value of its cookie `name`. */
export function authCookieHeader(name: string, value: string): string {
  return `${PREFIX}${name}=${value}`;
}

/**
 * The session token better-auth issued in an answer (its bearer plugin's `set-auth-token`: `token.signature`), or
 * null when it issued none.
 */
export function issuedSessionToken(headers: Headers): string | null {
  const signed = headers.get("set-auth-token");
  if (!signed) return null;
  const token = decodeURIComponent(signed).split(".", 1)[0];
  return token.length > 0 ? token : null;
}
