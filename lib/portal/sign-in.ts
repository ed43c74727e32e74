import { z } from "zod";
import { findKeyBySecret } from "@/lib/auth/find-key";
import { createSessionToken } from "@/lib/auth/session-token";
import type { Executor } from "@/lib/db/client";

export const signInFormSchema = z.object({
  key: z.string().trim().min(1, "Paste your API key.").max(256),
  next: z.string().max(2048).optional(),
});

/** A session token for a live key, or null (unknown, revoked or malformed key: same answer). */
export async function openPortalSession(db: Executor, secret: string): Promise<string | null> {
  const principal = await findKeyBySecret(db, secret);
  return principal ? createSessionToken(principal.keyId) : null;
}

/**
 * Sign-in and sign-out change state on a plain form POST: refuse cross-site posts (login CSRF).
 * Browsers send Origin on POST; a request without one (curl) is not a browser attack.
 */
export function isSameOriginPost(request: Request): boolean {
  const origin = request.headers.get("origin");
  if (!origin || origin === "null") return origin === null;
  const host = request.headers.get("x-forwarded-host") ?? request.headers.get("host");
  try {
    return new URL(origin).host === host;
  } catch {
    return false;
  }
}

/** Only same-site absolute paths: `//evil.example` and `/\\evil` are protocol-relative in browsers. */
export function safeReturnPath(path: string | null | undefined): string {
  if (!path || !path.startsWith("/") || path.startsWith("//") || path.startsWith("/\\")) return "/";
  return path;
}
