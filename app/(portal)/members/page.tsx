import type { Metadata } from "next";
import { MembersPanel } from "@/components/people/members-panel";
import { describeRole, ROLES } from "@/lib/auth/roles";
import { getDb } from "@/lib/db/client";
import { assignableRoles, listMembers } from "@/lib/people/members";
import { requirePortalSession } from "@/lib/portal/session";

export const metadata: Metadata = { title: "Members" };

export default async function MembersPage({ searchParams }: { searchParams: Promise<Record<string, unknown>> }) {
  const params = await searchParams;
  const { principal } = await requirePortalSession("/members");
  const allowed = principal.scopes.has("members:read") && principal.organizationId !== undefined;
  const listed = allowed ? await listMembers(await getDb(), principal.organizationId!) : null;
  const text = (name: string) => (typeof params[name] === "string" ? (params[name] as string) : undefined);
  return (
    <MembersPanel
      listed={listed}
      roles={assignableRoles(principal.role)}
      described={ROLES.map((role) => ({ role, can: describeRole(role) }))}
      me={principal.userId}
      notice={{ done: text("done"), error: text("error"), message: text("message"), wait: text("wait") }}
    />
  );
}
