import { isSecureRequest } from "@/lib/auth/request-origin";

// The portal's short-lived cookies for a ceremony that spans two requests: the pending sign-in between the password
// and the second factor (better-auth's signed challenge, 10 minutes), and a passkey's challenge (5 minutes). HttpOnly
// and SameSite=Strict: only this site's own next request carries them; `__Host-` over https like the session cookie.

export type Ceremony = "second-factor" | "passkey";

const MAX_AGE: Record<Ceremony, number> = { "second-factor": 600, passkey: 300 };
const BASE: Record<Ceremony, string> = { "second-factor": "cb_2fa", passkey: "cb_passkey" };

export function ceremonyCookieName(ceremony: Ceremony, secure: boolean): string {
  return secure ? `__Host-${BASE[ceremony]}` : BASE[ceremony];
}

function cookie(name: string, value: string, maxAge: number, secure: boolean): string {
  const parts = [`${name}=${value}`, "Path=/", `Max-Age=${maxAge}`, "HttpOnly", "SameSite=Strict"];
  if (secure) parts.push("Secure");
  return parts.join("; ");
}

/** Set-Cookie carrying a ceremony's challenge (better-auth's signed value, already cookie-safe). */
export function ceremonySetCookie(ceremony: Ceremony, challenge: string, secure: boolean): string {
  return cookie(ceremonyCookieName(ceremony, secure), encodeURIComponent(challenge), MAX_AGE[ceremony], secure);
}

export function ceremonyClearCookie(ceremony: Ceremony, secure: boolean): string {
  return cookie(ceremonyCookieName(ceremony, secure), "", 0, secure);
}

/** The challenge a request carries back, or null. */
export function ceremonyChallenge(cookieHeader: string | null, ceremony: Ceremony, secure: boolean): string | null {
  const wanted = ceremonyCookieName(ceremony, secure);
  for (const part of (cookieHeader ?? "").split(";")) {
    const eq = part.indexOf("=");
    if (eq > 0 && part.slice(0, eq).trim() === wanted) {
      try {
        const value = decodeURIComponent(part.slice(eq + 1).trim());
        return value.length > 0 && value.length <= 1024 ? value : null;
      } catch {
        return null;
      }
    }
  }
  return null;
}

export function requestChallenge(request: Request, ceremony: Ceremony): string | null {
  return ceremonyChallenge(request.headers.get("cookie"), ceremony, isSecureRequest(request));
}
