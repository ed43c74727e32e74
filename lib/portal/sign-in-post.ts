import { portalKeySignInEnabled } from "@/lib/config/env";
import { getDb } from "@/lib/db/client";
import { signInPerson } from "@/lib/people/sign-in";
import { ceremonySetCookie } from "./ceremony-cookie";
import { isSecureRequest, sessionSetCookie } from "./session-cookie";
import {
  isSameOriginPost,
  openPortalSession,
  personSignInFormSchema,
  safeReturnPath,
  signInFormSchema,
  throttledSignIn,
} from "./sign-in";
import { endPortalSessionOf } from "./sign-out";

/**
 * POST /session, the sign-in form: a person's email and password, or (PORTAL_KEY_SIGN_IN=1, development only) an
 * API key. Answers 303 so the browser lands on a GET page either way: the page asked for (`next`), or the sign-in
 * page with the reason. A session this browser held before is ended, not just replaced (a new one at every sign-in).
 */
export async function signInResponse(request: Request): Promise<Response> {
  const form = await request.formData().catch(() => null);
  const field = (name: string) => {
    const value = form?.get(name);
    return typeof value === "string" ? value : undefined;
  };
  const next = safeReturnPath(field("next"));
  const back = (error: string) =>
    redirect(`/sign-in?error=${error}${next !== "/" ? `&next=${encodeURIComponent(next)}` : ""}`);
  if (!isSameOriginPost(request)) return back("origin");
  const db = await getDb();
  let cookieToken: string;
  if (field("key") !== undefined) {
    if (!portalKeySignInEnabled()) return back("key_disabled");
    const parsed = signInFormSchema.safeParse({ key: field("key"), next: field("next") });
    if (!parsed.success) return back("missing");
    const opened = await openPortalSession(db, parsed.data.key, request.headers);
    if (!opened.ok && opened.reason === "throttled") return throttledSignIn(request, opened);
    if (!opened.ok) return back(opened.reason === "no_read_scope" ? "scope" : "invalid");
    cookieToken = opened.session.token;
  } else {
    const parsed = personSignInFormSchema.safeParse({ email: field("email"), password: field("password") });
    if (!parsed.success) return back("missing_password");
    const signedIn = await signInPerson(db, parsed.data, request.headers);
    if (!signedIn.ok && signedIn.reason === "throttled") return throttledSignIn(request, signedIn);
    if (!signedIn.ok && signedIn.reason === "second_factor") {
      // The password was right; the code is asked on the next page. Until then there is no session.
      const query = next !== "/" ? `?next=${encodeURIComponent(next)}` : "";
      return redirect(
        `/sign-in/second-factor${query}`,
        ceremonySetCookie("second-factor", signedIn.challenge, isSecureRequest(request)),
      );
    }
    if (!signedIn.ok) return back(signedIn.reason === "invalid" ? "password" : signedIn.reason);
    cookieToken = signedIn.session.cookieToken;
  }
  await endPortalSessionOf(db, request);
  return redirect(next, sessionSetCookie(cookieToken, isSecureRequest(request)));
}

export function redirect(location: string, ...cookies: string[]): Response {
  const headers = new Headers({ location, "cache-control": "no-store" });
  for (const c of cookies) headers.append("set-cookie", c);
  return new Response(null, { status: 303, headers });
}
