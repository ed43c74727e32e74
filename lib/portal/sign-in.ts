import { randomUUID } from "node:crypto";
import { z } from "zod";
import { problemResponse } from "@/lib/http/json-response";
import { authFailuresExceeded, countAuthFailure } from "@/lib/auth/failure-limit";
import { ApiError } from "@/lib/errors/api-error";
import { findKeyBySecret } from "@/lib/auth/find-key";
import type { Principal } from "@/lib/auth/principal";
import { createPortalSession, type OpenedSession } from "@/lib/auth/portal-sessions";
import { isSameOrigin } from "@/lib/auth/request-origin";
import type { Executor } from "@/lib/db/client";

export const signInFormSchema = z.object({
  key: z.string().trim().min(1, "Paste your API key.").max(256),
  next: z.string().max(2048).optional(),
});

/** A person's sign-in form (README "People, organizations and roles"). */
export const personSignInFormSchema = z.object({
  email: z.string().trim().min(3).max(320),
  password: z.string().min(1).max(256),
  next: z.string().max(2048).optional(),
});

/** The portal shows calls, balances and rates: a key that cannot read calls has nothing to see there. */
export function canUsePortal(principal: Principal): boolean {
  return principal.scopes.has("calls:read");
}

export type SignInResult =
  | { ok: true; session: OpenedSession }
  /** invalid: unknown, revoked or malformed key (one answer for all); no_read_scope: an ingest-only key. */
  | { ok: false; reason: "invalid" | "no_read_scope" }
  /** The key was refused and this address has spent its allowance of refused credentials (failure-limit.ts). */
  | { ok: false; reason: "throttled"; retryAfterSeconds: number };

/**
 * Opens a server-side session for a live key that may read calls. A refused key counts against the client's
 * address like a refused /v1 credential (lib/auth/failure-limit.ts); a valid key signs in whatever that count.
 */
export async function openPortalSession(
  db: Executor,
  secret: string,
  headers: { get(name: string): string | null },
): Promise<SignInResult> {
  const principal = await findKeyBySecret(db, secret);
  if (!principal) {
    const wait = await countAuthFailure(headers);
    return wait === null
      ? { ok: false, reason: "invalid" }
      : { ok: false, reason: "throttled", retryAfterSeconds: wait };
  }
  if (!canUsePortal(principal)) return { ok: false, reason: "no_read_scope" };
  return { ok: true, session: await createPortalSession(db, principal.keyId) };
}

/**
 * 429 with Retry-After for a throttled sign-in: problem+json (docs/contract.md §3), or a short page for a browser's
 * form post, which would otherwise show the JSON. It names the limit that was spent: the account's (an email or a
 * person, lib/people/request-limit.ts), the address's, or (no `limit`: key sign-in) the address's refused credentials.
 */
export function throttledSignIn(
  request: Request,
  throttle: { retryAfterSeconds: number; limit?: "address" | "account" },
): Response {
  const { retryAfterSeconds, limit } = throttle;
  const sentence =
    limit === "account"
      ? "Too many attempts for this account"
      : limit === "address"
        ? "Too many attempts from this address"
        : "Too many failed authentications from this address";
  if (!(request.headers.get("accept") ?? "").includes("text/html")) {
    const error =
      limit === undefined
        ? authFailuresExceeded(retryAfterSeconds)
        : new ApiError("rate_limited", `${sentence}: retry in ${retryAfterSeconds} s.`, undefined, {
            "Retry-After": String(retryAfterSeconds),
          });
    return problemResponse(error, randomUUID());
  }
  const headers = { "retry-after": String(retryAfterSeconds), "cache-control": "no-store" };
  const page = `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Too many sign-in attempts</title></head>
<body><main><h1>Too many sign-in attempts</h1><p>${sentence}. Wait ${retryAfterSeconds} seconds, then <a href="/sign-in">sign in again</a>.</p></main></body></html>`;
  return new Response(page, { status: 429, headers: { ...headers, "content-type": "text/html; charset=utf-8" } });
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

/**
 * The page a portal request asked for, path and query, as the sign-in page's `next`: a deep link (filters,
 * account, report) survives signing in, whatever form sign-in takes. Repeated parameters are kept.
 */
export function returnPathOf(pathname: string, searchParams: Record<string, string | string[] | undefined>): string {
  const query = searchParamsOf(searchParams);
  return safeReturnPath(`${pathname}${query.size ? `?${query}` : ""}`);
}

/** A page's searchParams (Next's object) as the URLSearchParams the browser's useSearchParams reads, in order. */
export function searchParamsOf(searchParams: Record<string, string | string[] | undefined>): URLSearchParams {
  const query = new URLSearchParams();
  for (const [name, value] of Object.entries(searchParams)) {
    for (const v of Array.isArray(value) ? value : value === undefined ? [] : [value]) query.append(name, v);
  }
  return query;
}
