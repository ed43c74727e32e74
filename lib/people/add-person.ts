import { sql } from "drizzle-orm";
import { CLI_ACTOR } from "@/lib/audit/actor";
import { recordAuditEvent } from "@/lib/audit/record-audit-event";
import type { Role } from "@/lib/auth/roles";
import { queryRows, type Db } from "@/lib/db/client";
import { endSessionsIn } from "./end-sessions";
import { organizationOfGroup, PLATFORM_ORGANIZATION_ID } from "./organizations";
import { hashPassword } from "./password";
import { authRowId } from "./auth-row-id";

export interface AddPersonInput {
  email: string;
  name: string;
  password: string;
  role: Role;
  /** A billing group's id, or "platform" for the operator's staff. */
  organization: string;
}

export interface AddedPerson {
  userId: string;
  memberId: string;
  organizationId: string;
  email: string;
  role: Role;
}

/**
 * The operator's way in (admin CLI `people add`, the demo): a person with a confirmed email and a password, member
 * of one organization. Everyone else joins by invitation (lib/people/accept-invitation.ts). A person who exists is
 * added to the organization (their password stays); one who is a member already gets the role.
 */
export async function addPerson(db: Db, input: AddPersonInput): Promise<AddedPerson> {
  const email = input.email.trim().toLowerCase();
  const organizationId =
    input.organization === "platform" ? PLATFORM_ORGANIZATION_ID : await organizationOfGroup(db, input.organization);
  const passwordHash = await hashPassword(input.password);
  return db.transaction(async (tx) => {
    const [existing] = await queryRows<{ id: string }>(tx, sql`SELECT id FROM users WHERE email = ${email}`);
    const userId = existing?.id ?? authRowId("usr");
    if (!existing) {
      await tx.execute(
        sql`INSERT INTO users (id, name, email, email_verified) VALUES (${userId}, ${input.name}, ${email}, true)`,
      );
      await tx.execute(sql`INSERT INTO auth_accounts (id, account_id, provider_id, user_id, password)
        VALUES (${authRowId("acc")}, ${userId}, 'credential', ${userId}, ${passwordHash})`);
    }
    const [member] = await queryRows<{ id: string }>(
      tx,
      sql`INSERT INTO members (id, organization_id, user_id, role) VALUES (${authRowId("mem")}, ${organizationId}, ${userId}, ${input.role})
        ON CONFLICT (organization_id, user_id) DO UPDATE SET role = EXCLUDED.role RETURNING id`,
    );
    return { userId, memberId: member.id, organizationId, email, role: input.role };
  });
}

/**
 * The operator's change of a person's membership (admin CLI `people role` / `people remove`): a role, or null to
 * remove them from the organization. Their sessions there end (lib/people/end-sessions.ts), in every process at their
 * next request (migration 0014).
 * Returns false when they are not a member there.
 */
export async function setMembership(
  db: Db,
  input: { email: string; organization: string; role: Role | null },
): Promise<boolean> {
  const organizationId =
    input.organization === "platform" ? PLATFORM_ORGANIZATION_ID : await organizationOfGroup(db, input.organization);
  const email = input.email.trim().toLowerCase();
  return db.transaction(async (tx) => {
    const [member] = await queryRows<{ id: string; user_id: string; role: string; billing_group_id: string | null }>(
      tx,
      sql`SELECT m.id, m.user_id, m.role, o.billing_group_id FROM members m JOIN organizations o ON o.id = m.organization_id
        WHERE m.organization_id = ${organizationId} AND m.user_id = (SELECT id FROM users WHERE email = ${email})
        FOR UPDATE OF m`,
    );
    if (!member) return false;
    if (input.role === null) await tx.execute(sql`DELETE FROM members WHERE id = ${member.id}`);
    else await tx.execute(sql`UPDATE members SET role = ${input.role} WHERE id = ${member.id}`);
    await endSessionsIn(tx, member.user_id, organizationId);
    await recordAuditEvent(tx, {
      actor: CLI_ACTOR,
      action: input.role === null ? "member.removed" : "member.role_changed",
      billingGroupId: member.billing_group_id,
      targetType: "member",
      targetId: member.id,
      address: null,
      before: { email, role: member.role },
      after: input.role === null ? null : { email, role: input.role },
    });
    return true;
  });
}
