import { getDb } from "@/lib/db/client";
import { acceptInvitation } from "@/lib/people/accept-invitation";
import { requestPasswordReset, resetPassword } from "@/lib/people/password-reset";
import { ceremonySetCookie } from "./ceremony-cookie";
import { isSecureRequest, sessionSetCookie } from "./session-cookie";
import { isSameOriginPost, throttledSignIn } from "./sign-in";
import { redirect } from "./sign-in-post";
import { endPortalSessionOf } from "./sign-out";

// The form posts of the pages a person uses before signing in (README "People, organizations and roles"). Each
// answers 303 to a GET page, or 429 with Retry-After when the address or the account has spent its allowance.

async function formOf(request: Request): Promise<(name: string) => string> {
  const form = await request.formData().catch(() => null);
  return (name) => {
    const value = form?.get(name);
    return typeof value === "string" ? value.slice(0, 2048) : "";
  };
}

/** POST /session/password-reset: mails a reset link when the address is a person's; the same answer when not. */
export async function passwordResetRequestResponse(request: Request): Promise<Response> {
  if (!isSameOriginPost(request)) return redirect("/forgot-password?error=origin");
  const field = await formOf(request);
  const email = field("email").trim();
  if (!email) return redirect("/forgot-password?error=missing");
  const result = await requestPasswordReset(await getDb(), email, request.headers);
  if (!result.ok) return throttledSignIn(request, result);
  return redirect("/forgot-password?sent=1");
}

/** POST /session/new-password: sets the password chosen on /reset-password with the mailed token. */
export async function newPasswordResponse(request: Request): Promise<Response> {
  const field = await formOf(request);
  const token = field("token");
  const back = (error: string) => redirect(`/reset-password?token=${encodeURIComponent(token)}&error=${error}`);
  if (!isSameOriginPost(request)) return back("origin");
  if (field("password") !== field("confirm")) return back("mismatch");
  const result = await resetPassword(await getDb(), { token, password: field("password") }, request.headers);
  if (!result.ok && result.reason === "throttled") return throttledSignIn(request, result);
  if (!result.ok) return back(result.reason);
  return redirect("/sign-in?reset=1");
}

/** POST /session/accept-invitation: joins the organization and signs the person in. */
export async function acceptInvitationResponse(request: Request): Promise<Response> {
  const field = await formOf(request);
  const id = field("id");
  const back = (error: string) => redirect(`/accept-invitation?id=${encodeURIComponent(id)}&error=${error}`);
  if (!isSameOriginPost(request)) return back("origin");
  if (field("confirm") && field("password") !== field("confirm")) return back("mismatch");
  const db = await getDb();
  const result = await acceptInvitation(
    db,
    { invitationId: id, name: field("name"), password: field("password") },
    request.headers,
  );
  if (!result.ok && result.reason === "throttled") return throttledSignIn(request, result);
  if (!result.ok && result.reason === "second_factor") {
    // Joined; the session opens once the code is given, as at any sign-in of a person with TOTP.
    return redirect(
      "/sign-in/second-factor",
      ceremonySetCookie("second-factor", result.challenge, isSecureRequest(request)),
    );
  }
  if (!result.ok) return back(result.reason);
  await endPortalSessionOf(db, request);
  return redirect("/", sessionSetCookie(result.session.cookieToken, isSecureRequest(request)));
}
