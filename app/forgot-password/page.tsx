import type { Metadata } from "next";
import Link from "next/link";
import { AuthCard, AuthField, AuthNotice } from "@/components/people/auth-card";
import { primaryButtonClass } from "@/components/ui/button";
import { ErrorState } from "@/components/ui/error-state";

export const metadata: Metadata = { title: "Reset your password" };

const ERRORS: Record<string, string> = {
  missing: "Enter the email address of your account.",
  origin: "The request came from another site and was refused.",
};

export default async function ForgotPasswordPage({ searchParams }: { searchParams: Promise<Record<string, unknown>> }) {
  const params = await searchParams;
  const error = typeof params.error === "string" ? ERRORS[params.error] : undefined;
  return (
    <AuthCard title="Reset your password" intro="We mail a link to choose a new password to your account's address.">
      {params.sent ? (
        <AuthNotice>If that address has an account, a link is on its way. It works once, for an hour.</AuthNotice>
      ) : null}
      {error ? <ErrorState className="mt-4">{error}</ErrorState> : null}
      <form action="/session/password-reset" method="post" className="mt-6 space-y-4">
        <AuthField id="email" label="Email" type="email" required autoFocus autoComplete="username" />
        <button type="submit" className={primaryButtonClass({ block: true })}>
          Mail me a link
        </button>
      </form>
      <p className="mt-4 text-sm">
        <Link href="/sign-in" className="font-medium text-brand-700 hover:underline">
          Back to sign-in
        </Link>
      </p>
    </AuthCard>
  );
}
