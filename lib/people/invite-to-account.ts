import { sql } from "drizzle-orm";
import type { Principal } from "@/lib/auth/principal";
import { reachOf, requireProvisioningOf } from "@/lib/auth/reach";
import type { Role } from "@/lib/auth/roles";
import { auditActorOf } from "@/lib/audit/actor";
import { recordAuditEvent } from "@/lib/audit/record-audit-event";
import { clientAddress } from "@/lib/auth/request-origin";
import { queryRows, type Db } from "@/lib/db/client";
import { ApiError } from "@/lib/errors/api-error";
import { enqueueMail } from "@/lib/mail/outbox";
import { authRowId } from "./auth-row-id";
import { INVITATION_DAYS } from "./auth";
import { invitationMail, invitationSender, type MemberChange } from "./members";
import { organizationOfGroup } from "./organizations";
import { takePeopleRequest } from "./request-limit";

type HeadersLike = { get(name: string): string | null };

/**
 * Invites a person into an account's organization from the console (issue 32 item 5): the platform's staff into any
 * account, a reseller's owners and admins into the accounts strictly below theirs (requireProvisioningOf: its own
 * account answers 403, as it invites there on its Members page; outside its subtree 404). Only a signed-in person
 * with `accounts:write` (the roles that provision) invites here, never a key; any role may be given, owner included
 * (an account's first person is usually its owner). The invitation, its `member.invited` event (in the account's
 * log) and its mail (the outbox, in the name of the account's reseller, if any) commit together; accepting is the
 * organization's own flow (lib/people/accept-invitation.ts): a new person sets a password, a person who exists
 * proves theirs and just gains the membership.
 */
export async function inviteToAccount(
  db: Db,
  principal: Principal,
  input: { billingGroupId: string; email: string; role: Role },
  headers: HeadersLike,
): Promise<MemberChange> {
  if (principal.via !== "user_session" || !principal.userId || !principal.scopes.has("accounts:write")) {
    throw new ApiError("insufficient_scope", "Inviting people into an account takes a staff or reseller session.");
  }
  requireProvisioningOf(reachOf(principal), input.billingGroupId, "invite people to");
  const wait = await takePeopleRequest("invitation", principal.userId, headers);
  if (wait !== null) return wait;
  const email = input.email.trim().toLowerCase();
  const organizationId = await organizationOfGroup(db, input.billingGroupId);
  return db.transaction(async (tx): Promise<MemberChange> => {
    const [member] = await queryRows(
      tx,
      sql`SELECT 1 FROM members m JOIN users u ON u.id = m.user_id
        WHERE m.organization_id = ${organizationId} AND u.email = ${email}`,
    );
    if (member) return { ok: false, reason: "refused", message: `${email} is already a member of this account.` };
    // As better-auth's cancelPendingInvitationsOnReInvite: inviting an address again replaces its pending invitation.
    await tx.execute(sql`UPDATE invitations SET status = 'canceled'
      WHERE organization_id = ${organizationId} AND email = ${email} AND status = 'pending'`);
    const id = authRowId("inv");
    await tx.execute(sql`INSERT INTO invitations (id, organization_id, email, role, status, expires_at, inviter_id)
      VALUES (${id}, ${organizationId}, ${email}, ${input.role}, 'pending',
        now() + ${`${INVITATION_DAYS} days`}::interval, ${principal.userId})`);
    await recordAuditEvent(tx, {
      actor: auditActorOf(principal),
      action: "member.invited",
      billingGroupId: input.billingGroupId,
      targetType: "invitation",
      targetId: id,
      address: clientAddress(headers),
      after: { email, role: input.role },
    });
    const mail = invitationMail(await invitationSender(tx, organizationId), id, input.role);
    await enqueueMail(tx, [{ key: `invitation:${id}`, to: email, ...mail }]);
    return { ok: true };
  });
}
