import type { Metadata } from "next";
import Link from "next/link";
import { redirect } from "next/navigation";
import { AuthCard, AuthField, AuthNotice } from "@/components/people/auth-card";
import { PasskeySignIn } from "@/components/people/passkey-sign-in";
import { primaryButtonClass } from "@/components/ui/button";
import { ErrorState } from "@/components/ui/error-state";
import { portalKeySignInEnabled } from "@/lib/config/env";
import { SIGN_IN_MESSAGES, SIGN_IN_NOTICES } from "@/lib/portal/sign-in-messages";
import { getPortalPrincipal } from "@/lib/portal/session";
import { safeReturnPath } from "@/lib/portal/sign-in";

export const metadata: Metadata = { title: "Sign in" };

export default async function SignInPage({
  searchParams,
}: {
  searchParams: Promise<Record<string, string | string[] | undefined>>;
}) {
  const params = await searchParams;
  const next = safeReturnPath(typeof params.next === "string" ? params.next : undefined);
  const error = typeof params.error === "string" ? SIGN_IN_MESSAGES[params.error] : undefined;
  const notice = Object.entries(SIGN_IN_NOTICES).find(([flag]) => params[flag])?.[1];
  if (!error && (await getPortalPrincipal())) redirect(next);
  const keySignIn = portalKeySignInEnabled();
  const nextQuery = next !== "/" ? `&next=${encodeURIComponent(next)}` : "";

  if (params.sso === "1") {
    return (
      <AuthCard
        title="Sign in with SSO"
        intro="With your organization's identity provider: your work email tells which one."
      >
        {error ? <ErrorState className="mt-4">{error}</ErrorState> : null}
        <form action="/session/sso" method="post" className="mt-6 space-y-4">
          <input type="hidden" name="next" value={next} />
          <AuthField
            id="sso-email"
            name="email"
            label="Work email"
            type="email"
            required
            autoFocus
            autoComplete="username"
          />
          <button type="submit" className={primaryButtonClass({ block: true })}>
            Continue with SSO
          </button>
        </form>
        <p className="mt-4 text-sm text-slate-600">
          <Link
            href={next !== "/" ? `/sign-in?next=${encodeURIComponent(next)}` : "/sign-in"}
            className="font-medium text-brand-700 hover:underline"
          >
            Sign in with your password instead
          </Link>
        </p>
      </AuthCard>
    );
  }

  return (
    <AuthCard title="Sign in to your account" intro="With the email address and password of your Callbook account.">
      {notice ? <AuthNotice>{notice}</AuthNotice> : null}
      {error ? <ErrorState className="mt-4">{error}</ErrorState> : null}
      <form action="/session" method="post" className="mt-6 space-y-4">
        <input type="hidden" name="next" value={next} />
        <AuthField id="email" label="Email" type="email" required autoFocus autoComplete="username" />
        <AuthField id="password" label="Password" type="password" required autoComplete="current-password" />
        <button type="submit" className={primaryButtonClass({ block: true })}>
          Sign in
        </button>
      </form>
      <p className="mt-4 text-sm text-slate-600">
        <Link href="/forgot-password" className="font-medium text-brand-700 hover:underline">
          Forgot your password?
        </Link>{" "}
        New here? Ask your organization&apos;s owner or admin for an invitation.
      </p>
      <PasskeySignIn next={next} />
      <p className="mt-4 border-t border-slate-200 pt-4 text-sm text-slate-600">
        Your organization uses single sign-on?{" "}
        <Link href={`/sign-in?sso=1${nextQuery}`} className="font-medium text-brand-700 hover:underline">
          Sign in with SSO
        </Link>
      </p>
      {keySignIn ? (
        <form action="/session" method="post" className="mt-6 space-y-4 border-t border-slate-200 pt-6">
          <input type="hidden" name="next" value={next} />
          <AuthField
            id="key"
            label="API key"
            type="password"
            required
            autoComplete="off"
            spellCheck={false}
            placeholder="ck_…"
            help="Development only (PORTAL_KEY_SIGN_IN=1): a signed session cookie is kept, never the key."
          />
          <button type="submit" className={primaryButtonClass({ block: true })}>
            Sign in with key
          </button>
        </form>
      ) : null}
    </AuthCard>
  );
}
