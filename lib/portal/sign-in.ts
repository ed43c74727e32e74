import { z } from "zod";
import { findKeyBySecret } from "@/lib/auth/find-key";
import type { Principal } from "@/lib/auth/principal";
import { createPortalSession, type OpenedSession } from "@/lib/auth/portal-sessions";
import { isSameOrigin } from "@/lib/auth/request-origin";
import type { Executor } from "@/lib/db/client";

export const signInFormSchema = z.object({
  key: z.string().trim().min(1, "Paste your API key.").max(256),
  next: z.string().max(2048).optional(),
});

/** The portal shows calls, balances and rates: a key that cannot read calls has nothing to see there. */
export function canUsePortal(principal: Principal): boolean {
  return principal.scopes.has("calls:read");
}

export type SignInResult =
  | { ok: true; session: OpenedSession }
  /** invalid: unknown, revoked or malformed key (one answer for all); no_read_scope: an ingest-only key. */
  | { ok: false; reason: "invalid" | "no_read_scope" };

/** Opens a server-side session for a live key that may read calls. */
export async function openPortalSession(db: Executor, secret: string): Promise<SignInResult> {
  const principal = await findKeyBySecret(db, secret);
  if (!principal) return { ok: false, reason: "invalid" };
  if (!canUsePortal(principal)) return { ok: false, reason: "no_read_scope" };
  return { ok: true, session: await createPortalSession(db, principal.keyId) };
}

/**
 * Sign-in and sign-out change state on a plain form POST: refuse cross-site posts (login CSRF).
 * Browsers send Origin on POST; a request without one (curl) is not a browser attack.
 */
export function isSameOriginPost(request: Request): boolean {
  return isSameOrigin(request, { allowMissing: true });
}

const BASE = "http://callbook.invalid";
// C0 controls and DEL: the URL parser silently drops tab, CR and LF ("/\t/evil" becomes "//evil"),
// and a newline in a Location header is a response-splitting attempt. Backslashes are slashes to browsers.
const UNSAFE = /[\u0000-\u001f\u007f\\]/;

/**
 * Where to go after sign-in: only a path of this site. Anything else (another origin, a scheme,
 * `//host`, control characters, backslashes) becomes "/". The path is resolved against a dummy
 * origin and must stay on it; the result is the parser's normalised, percent-encoded form, safe to
 * put in a Location header.
 */
export function safeReturnPath(path: string | null | undefined): string {
  if (typeof path !== "string" || path.length === 0 || path.length > 2048) return "/";
  if (UNSAFE.test(path) || !path.startsWith("/") || path.startsWith("//")) return "/";
  let url: URL;
  try {
    url = new URL(path, BASE);
  } catch {
    return "/";
  }
  if (url.origin !== BASE) return "/";
  const normalised = `${url.pathname}${url.search}${url.hash}`;
  return normalised.startsWith("//") ? "/" : normalised;
}
