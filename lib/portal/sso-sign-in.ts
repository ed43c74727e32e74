import { z } from "zod";
import { getDb } from "@/lib/db/client";
import { finishSsoSignIn, startSsoSignIn } from "@/lib/people/sso-sign-in";
import { isSecureRequest, sessionSetCookie } from "./session-cookie";
import { isSameOriginPost, safeReturnPath, throttledSignIn } from "./sign-in";
import { redirect } from "./sign-in-post";
import { endPortalSessionOf } from "./sign-out";

// The portal's single sign-on routes (docs/contract.md §16): POST /session/sso starts (the work email picks the
// organization's provider), GET /session/sso/callback finishes. Between the two the browser holds a cookie naming
// its attempt, scoped to /session/sso, for ten minutes: the callback is accepted only in the browser that started.

const ATTEMPT_COOKIE = "cb_sso_attempt";
const ATTEMPT_PATH = "/session/sso";

export const ssoFormSchema = z.object({ email: z.string().trim().min(3).max(320).includes("@") });

function attemptCookieName(secure: boolean): string {
  return secure ? `__Secure-${ATTEMPT_COOKIE}` : ATTEMPT_COOKIE;
}

function attemptCookie(value: string, maxAge: number, secure: boolean): string {
  const parts = [`${attemptCookieName(secure)}=${value}`, `Path=${ATTEMPT_PATH}`, `Max-Age=${maxAge}`, "HttpOnly"];
  // Lax: sent on the provider's top-level GET redirect back to the callback, not on cross-site subrequests.
  parts.push("SameSite=Lax");
  if (secure) parts.push("Secure");
  return parts.join("; ");
}

function attemptIdOf(request: Request): string | null {
  const wanted = attemptCookieName(isSecureRequest(request));
  for (const part of (request.headers.get("cookie") ?? "").split(";")) {
    const eq = part.indexOf("=");
    if (eq > 0 && part.slice(0, eq).trim() === wanted) return part.slice(eq + 1).trim() || null;
  }
  return null;
}

/** POST /session/sso: on to the organization's identity provider, or back to the sign-in page with the reason. */
export async function ssoStartResponse(request: Request): Promise<Response> {
  const form = await request.formData().catch(() => null);
  const field = (name: string) => {
    const value = form?.get(name);
    return typeof value === "string" ? value : undefined;
  };
  const next = safeReturnPath(field("next"));
  const back = (error: string) =>
    redirect(`/sign-in?error=${error}&sso=1${next !== "/" ? `&next=${encodeURIComponent(next)}` : ""}`);
  if (!isSameOriginPost(request)) return back("origin");
  const parsed = ssoFormSchema.safeParse({ email: field("email") });
  if (!parsed.success) return back("sso_missing");
  const started = await startSsoSignIn(await getDb(), { email: parsed.data.email, next }, request.headers);
  if (!started.ok && started.reason === "throttled") return throttledSignIn(request, started);
  if (!started.ok) return back(`sso_${started.reason}`);
  return continueTo(started.authorizationUrl, attemptCookie(started.attemptId, 600, isSecureRequest(request)));
}

const escapeHtml = (text: string) => text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

/**
 * A short page that sends the browser on to the provider (meta refresh, and a link), not a 303: the sign-in page's
 * CSP says `form-action 'self'`, and browsers apply it to the redirects that follow a form post, so a redirect to
 * the provider's origin would be blocked.
 */
function continueTo(url: string, cookie: string): Response {
  const href = escapeHtml(url);
  const page = `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="referrer" content="no-referrer">
<meta http-equiv="refresh" content="0;url=${href}"><title>Continuing to your identity provider</title></head>
<body><main><h1>Continuing to your identity provider</h1><p><a href="${href}">Continue</a></p></main></body></html>`;
  const headers = new Headers({ "content-type": "text/html; charset=utf-8", "cache-control": "no-store" });
  headers.append("set-cookie", cookie);
  return new Response(page, { status: 200, headers });
}

/** GET /session/sso/callback: the provider's answer; a new session and 303 to the page asked for, or the reason. */
export async function ssoCallbackResponse(request: Request): Promise<Response> {
  const db = await getDb();
  const secure = isSecureRequest(request);
  const query = new URL(request.url).searchParams;
  const finished = await finishSsoSignIn(db, { query, attemptId: attemptIdOf(request) }, request.headers);
  const clear = attemptCookie("", 0, secure);
  if (!finished.ok) return redirect(`/sign-in?error=sso_${finished.reason}&sso=1`, clear);
  await endPortalSessionOf(db, request);
  return redirect(finished.next, sessionSetCookie(finished.session.cookieToken, secure), clear);
}
