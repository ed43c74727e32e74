import type { Metadata } from "next";
import { SecurityPanel } from "@/components/people/security-panel";
import { getDb } from "@/lib/db/client";
import { listPasskeys } from "@/lib/people/passkeys";
import { requiresTwoFactor } from "@/lib/people/require-two-factor";
import { secondFactorStatus } from "@/lib/people/two-factor";
import { requirePersonSession } from "@/lib/portal/session";

export const metadata: Metadata = { title: "Security" };

export default async function SecurityPage({ searchParams }: { searchParams: Promise<Record<string, unknown>> }) {
  const params = await searchParams;
  const { principal } = await requirePersonSession("/security");
  const text = (name: string) => (typeof params[name] === "string" ? (params[name] as string) : undefined);
  if (principal.via !== "user_session" || !principal.userId) {
    return <SecurityPanel person={null} notice={{}} />;
  }
  const db = await getDb();
  const [status, passkeys, required] = await Promise.all([
    secondFactorStatus(db, principal.userId),
    listPasskeys(db, principal.userId),
    requiresTwoFactor(db, principal.organizationId ?? ""),
  ]);
  return (
    <SecurityPanel
      person={{
        email: principal.keyLabel ?? "",
        status,
        passkeys,
        organizationRequires: required,
        mustEnroll: principal.twoFactorRequired === true,
        // Owners and admins (members:write) set the organization's requirement.
        managesOrganization: principal.scopes.has("members:write"),
      }}
      notice={{ done: text("done"), error: text("error") }}
    />
  );
}
