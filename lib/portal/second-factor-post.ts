import { getDb } from "@/lib/db/client";
import { verifySecondFactor } from "@/lib/people/sign-in";
import { ceremonyClearCookie, requestChallenge } from "./ceremony-cookie";
import { isSecureRequest, sessionSetCookie } from "./session-cookie";
import { isSameOriginPost, safeReturnPath, throttledSignIn } from "./sign-in";
import { redirect } from "./sign-in-post";
import { endPortalSessionOf } from "./sign-out";

/**
 * POST /session/second-factor, the sign-in's second step: a code from the authenticator app (`kind=totp`) or a
 * recovery code (`kind=recovery`) for the pending sign-in the `cb_2fa` cookie names. A wrong code lands back on the
 * step; a spent or expired challenge back at the password.
 */
export async function secondFactorResponse(request: Request): Promise<Response> {
  const form = await request.formData().catch(() => null);
  const field = (name: string) => {
    const value = form?.get(name);
    return typeof value === "string" ? value.slice(0, 64) : "";
  };
  const next = safeReturnPath(form?.get("next")?.toString());
  const kind = field("kind") === "recovery" ? "recovery" : "totp";
  const carried = next !== "/" ? `&next=${encodeURIComponent(next)}` : "";
  const secure = isSecureRequest(request);
  if (!isSameOriginPost(request)) return redirect(`/sign-in?error=origin${carried}`);
  const challenge = requestChallenge(request, "second-factor");
  if (!challenge) return redirect(`/sign-in?error=second_factor_expired${carried}`);
  if (!field("code").trim()) return redirect(`/sign-in/second-factor?error=missing&kind=${kind}${carried}`);
  const db = await getDb();
  const result = await verifySecondFactor(db, { challenge, code: field("code"), kind }, request.headers);
  if (!result.ok && result.reason === "throttled") return throttledSignIn(request, result);
  if (!result.ok && result.reason === "code") {
    return redirect(`/sign-in/second-factor?error=code&kind=${kind}${carried}`);
  }
  if (!result.ok) {
    const error = result.reason === "no_organization" ? "no_organization" : "second_factor_expired";
    return redirect(`/sign-in?error=${error}${carried}`, ceremonyClearCookie("second-factor", secure));
  }
  await endPortalSessionOf(db, request);
  return redirect(
    next,
    sessionSetCookie(result.session.cookieToken, secure),
    ceremonyClearCookie("second-factor", secure),
  );
}
