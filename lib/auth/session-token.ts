import { createHmac, timingSafeEqual } from "node:crypto";
import { serverSecret } from "@/lib/config/secrets";

/**
 * Portal session: a signed token naming the API key it was opened with and when it expires.
 * It never contains the raw key; the key is re-checked (revocation) on every request.
 */
export const SESSION_TTL_SECONDS = 12 * 60 * 60;

export function sessionCookieName(secure: boolean): string {
  // __Host- needs Secure; plain http (local development) falls back to a normal name.
  return secure ? "__Host-cb_session" : "cb_session";
}

function sign(payload: string): string {
  return createHmac("sha256", serverSecret("SESSION_SECRET")).update(payload).digest("base64url");
}

export function createSessionToken(keyId: string, nowSeconds = Math.floor(Date.now() / 1000)): string {
  const payload = Buffer.from(JSON.stringify({ k: keyId, exp: nowSeconds + SESSION_TTL_SECONDS })).toString("base64url");
  return `${payload}.${sign(payload)}`;
}

/** The key id of a valid, unexpired token, else null. */
export function verifySessionToken(token: string, nowSeconds = Math.floor(Date.now() / 1000)): string | null {
  const dot = token.indexOf(".");
  if (dot <= 0 || token.length > 512) return null;
  const payload = token.slice(0, dot);
  const given = Buffer.from(token.slice(dot + 1));
  const expected = Buffer.from(sign(payload));
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) return null;
  try {
    const { k, exp } = JSON.parse(Buffer.from(payload, "base64url").toString("utf8")) as { k: unknown; exp: unknown };
    if (typeof k !== "string" || typeof exp !== "number" || exp <= nowSeconds) return null;
    return k;
  } catch {
    return null;
  }
}
