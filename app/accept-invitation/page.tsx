import type { Metadata } from "next";
import { AcceptInvitationForm } from "@/components/people/accept-invitation-form";
import { AuthCard } from "@/components/people/auth-card";
import { ErrorState } from "@/components/ui/error-state";
import { getDb } from "@/lib/db/client";
import { findInvitation } from "@/lib/people/accept-invitation";

export const metadata: Metadata = { title: "Accept your invitation" };

export default async function AcceptInvitationPage({
  searchParams,
}: {
  searchParams: Promise<Record<string, unknown>>;
}) {
  const params = await searchParams;
  const invitation = typeof params.id === "string" ? await findInvitation(await getDb(), params.id) : null;
  if (!invitation) {
    return (
      <AuthCard title="Accept your invitation">
        <ErrorState className="mt-4">This invitation has expired, was used already or was withdrawn.</ErrorState>
      </AuthCard>
    );
  }
  return (
    <AcceptInvitationForm invitation={invitation} error={typeof params.error === "string" ? params.error : undefined} />
  );
}
