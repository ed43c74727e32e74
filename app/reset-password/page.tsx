import type { Metadata } from "next";
import { AuthCard, AuthField } from "@/components/people/auth-card";
import { primaryButtonClass } from "@/components/ui/button";
import { ErrorState } from "@/components/ui/error-state";

export const metadata: Metadata = { title: "Choose a new password" };

const ERRORS: Record<string, string> = {
  invalid_token: "This link has expired or was used already. Ask for a new one.",
  weak_password: "Choose a password of 10 characters or more.",
  mismatch: "The two passwords differ.",
  origin: "The request came from another site and was refused.",
};

export default async function ResetPasswordPage({ searchParams }: { searchParams: Promise<Record<string, unknown>> }) {
  const params = await searchParams;
  const token = typeof params.token === "string" ? params.token : "";
  const error = typeof params.error === "string" ? ERRORS[params.error] : undefined;
  return (
    <AuthCard title="Choose a new password" intro="Every session of your account ends when the password changes.">
      {error ? <ErrorState className="mt-4">{error}</ErrorState> : null}
      <form action="/session/new-password" method="post" className="mt-6 space-y-4">
        <input type="hidden" name="token" value={token} />
        <AuthField
          id="password"
          label="New password"
          type="password"
          required
          minLength={10}
          autoComplete="new-password"
        />
        <AuthField id="confirm" label="Repeat it" type="password" required minLength={10} autoComplete="new-password" />
        <button type="submit" className={primaryButtonClass({ block: true })}>
          Set the password
        </button>
      </form>
    </AuthCard>
  );
}
