import { primaryButtonClass } from "@/components/ui/button";
import { ErrorState } from "@/components/ui/error-state";
import type { InvitationView } from "@/lib/people/accept-invitation";
import { AuthCard, AuthField } from "./auth-card";

const ERRORS: Record<string, string> = {
  wrong_password: "That is not the password of this account.",
  weak_password: "Choose a password of 10 characters or more.",
  mismatch: "The two passwords differ.",
  not_found: "This invitation has expired, was used already or was withdrawn.",
  origin: "The request came from another site and was refused.",
};

/** A new person chooses a name and password; someone with an account already proves it with theirs. */
export function AcceptInvitationForm({ invitation, error }: { invitation: InvitationView; error?: string }) {
  const message = error ? ERRORS[error] : undefined;
  return (
    <AuthCard
      title={`Join ${invitation.organizationName}`}
      intro={`You are invited as ${invitation.role}, with the address ${invitation.email}.`}
    >
      {message ? <ErrorState className="mt-4">{message}</ErrorState> : null}
      <form action="/session/accept-invitation" method="post" className="mt-6 space-y-4">
        <input type="hidden" name="id" value={invitation.id} />
        {invitation.personExists ? (
          <AuthField id="password" label="Your password" type="password" required autoComplete="current-password" />
        ) : (
          <>
            <AuthField id="name" label="Your name" required autoComplete="name" />
            <AuthField
              id="password"
              label="Choose a password"
              type="password"
              required
              minLength={10}
              autoComplete="new-password"
              help="10 characters or more."
            />
            <AuthField
              id="confirm"
              label="Repeat it"
              type="password"
              required
              minLength={10}
              autoComplete="new-password"
            />
          </>
        )}
        <button type="submit" className={primaryButtonClass({ block: true })}>
          Accept and sign in
        </button>
      </form>
    </AuthCard>
  );
}
