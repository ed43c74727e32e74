import type { Metadata } from "next";
import Link from "next/link";
import { AuthCard, AuthField } from "@/components/people/auth-card";
import { primaryButtonClass } from "@/components/ui/button";
import { ErrorState } from "@/components/ui/error-state";
import { SECOND_FACTOR_MESSAGES } from "@/lib/portal/sign-in-messages";
import { safeReturnPath } from "@/lib/portal/sign-in";

export const metadata: Metadata = { title: "Two-factor sign-in" };

// The second step of a password sign-in for a person with an authenticator app: the pending sign-in is in the
// cb_2fa cookie (lib/portal/sign-in-post.ts); the form posts to /session/second-factor.
export default async function SecondFactorPage({
  searchParams,
}: {
  searchParams: Promise<Record<string, string | string[] | undefined>>;
}) {
  const params = await searchParams;
  const next = safeReturnPath(typeof params.next === "string" ? params.next : undefined);
  const recovery = params.kind === "recovery";
  const error = typeof params.error === "string" ? SECOND_FACTOR_MESSAGES[params.error] : undefined;
  const carried = next !== "/" ? `&next=${encodeURIComponent(next)}` : "";
  return (
    <AuthCard
      title="Two-factor sign-in"
      intro={
        recovery
          ? "Enter one of the recovery codes you saved when you set up two-factor sign-in. Each code works once."
          : "Enter the 6-digit code your authenticator app shows for Callbook."
      }
    >
      {error ? <ErrorState className="mt-4">{error}</ErrorState> : null}
      <form action="/session/second-factor" method="post" className="mt-6 space-y-4">
        <input type="hidden" name="next" value={next} />
        <input type="hidden" name="kind" value={recovery ? "recovery" : "totp"} />
        {recovery ? (
          <AuthField id="code" label="Recovery code" required autoFocus autoComplete="off" spellCheck={false} />
        ) : (
          <AuthField
            id="code"
            label="Authentication code"
            required
            autoFocus
            inputMode="numeric"
            pattern="[0-9 ]{6,7}"
            autoComplete="one-time-code"
          />
        )}
        <button type="submit" className={primaryButtonClass({ block: true })}>
          Verify
        </button>
      </form>
      <p className="mt-4 text-sm text-slate-600">
        {recovery ? (
          <Link
            href={`/sign-in/second-factor?kind=totp${carried}`}
            className="font-medium text-brand-700 hover:underline"
          >
            Use your authenticator app instead
          </Link>
        ) : (
          <Link
            href={`/sign-in/second-factor?kind=recovery${carried}`}
            className="font-medium text-brand-700 hover:underline"
          >
            Lost your device? Use a recovery code
          </Link>
        )}{" "}
        ·{" "}
        <Link href="/sign-in" className="font-medium text-brand-700 hover:underline">
          Start again
        </Link>
      </p>
    </AuthCard>
  );
}
