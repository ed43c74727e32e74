import { createHmac, timingSafeEqual } from "node:crypto";
import { serverSecret } from "@/lib/config/secrets";

/**
 * Portal session cookie value: a signed token naming a server-side session (table portal_sessions)
 * and when it expires. It never contains the raw key. The signature lets forged or tampered cookies
 * be refused without a database read; the session row (ended at sign-out or key revocation) and the
 * key are checked on every request.
 */
export const SESSION_TTL_SECONDS = 12 * 60 * 60;

export function sessionCookieName(secure: boolean): string {
  // __Host- needs Secure; plain http (local development) falls back to a normal name.
  return secure ? "__Host-cb_session" : "cb_session";
}

function sign(payload: string): string {
  return createHmac("sha256", serverSecret("SESSION_SECRET")).update(payload).digest("base64url");
}

export interface SessionClaims {
  sessionId: string;
  /** Unix seconds. */
  expiresAt: number;
}

export function createSessionToken(sessionId: string, expiresAtSeconds: number): string {
  const payload = Buffer.from(JSON.stringify({ s: sessionId, exp: expiresAtSeconds })).toString("base64url");
  return `${payload}.${sign(payload)}`;
}

/** The claims of a validly signed, unexpired token, else null. Says nothing about the session row. */
export function verifySessionToken(token: string, nowSeconds = Math.floor(Date.now() / 1000)): SessionClaims | null {
  const dot = token.indexOf(".");
  if (dot <= 0 || token.length > 512) return null;
  const payload = token.slice(0, dot);
  const given = Buffer.from(token.slice(dot + 1));
  const expected = Buffer.from(sign(payload));
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) return null;
  try {
    const { s, exp } = JSON.parse(Buffer.from(payload, "base64url").toString("utf8")) as { s: unknown; exp: unknown };
    if (typeof s !== "string" || s.length === 0 || typeof exp !== "number" || exp <= nowSeconds) return null;
    return { sessionId: s, expiresAt: exp };
  } catch {
    return null;
  }
}
