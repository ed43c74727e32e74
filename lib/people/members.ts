import { sql } from "drizzle-orm";
import type { Principal } from "@/lib/auth/principal";
import { principalCacheFor } from "@/lib/auth/principal-cache";
import { auditActorOf } from "@/lib/audit/actor";
import { recordAuditEvent } from "@/lib/audit/record-audit-event";
import { clientAddress } from "@/lib/auth/request-origin";
import { ROLES, type Role } from "@/lib/auth/roles";
import { resellerNameOf } from "@/lib/billing/reseller-name";
import { queryRows, type Db, type Executor, type Tx } from "@/lib/db/client";
import { sendMail } from "@/lib/mail/send-mail";
import { authInTransaction, INVITATION_DAYS, sessionHeaders } from "./auth";
import { authErrorCode } from "./auth-error";
import { endSessionsIn } from "./end-sessions";
import { mailLink } from "./mail-origin";
import { takePeopleRequest, type PeopleThrottle } from "./request-limit";
import { sessionTokenOf } from "./sign-in";

type HeadersLike = { get(name: string): string | null };

export interface MemberRow {
  memberId: string;
  userId: string;
  name: string;
  email: string;
  role: string;
  joinedAt: string;
}

export interface PendingInvitation {
  id: string;
  email: string;
  role: string;
  expiresAt: string;
}

/** The members of an organization and its pending invitations, oldest first. */
export async function listMembers(
  db: Db,
  organizationId: string,
): Promise<{ members: MemberRow[]; invitations: PendingInvitation[] }> {
  const members = await queryRows<{
    member_id: string;
    user_id: string;
    name: string;
    email: string;
    role: string;
    joined_at: Date | string;
  }>(
    db,
    sql`SELECT m.id AS member_id, u.id AS user_id, u.name, u.email, m.role, m.created_at AS joined_at
      FROM members m JOIN users u ON u.id = m.user_id WHERE m.organization_id = ${organizationId}
      ORDER BY m.created_at, m.id`,
  );
  const invitations = await queryRows<{ id: string; email: string; role: string; expires_at: Date | string }>(
    db,
    sql`SELECT id, email, role, expires_at FROM invitations
      WHERE organization_id = ${organizationId} AND status = 'pending' AND expires_at > now() ORDER BY created_at, id`,
  );
  return {
    members: members.map((m) => ({
      memberId: m.member_id,
      userId: m.user_id,
      name: m.name,
      email: m.email,
      role: m.role,
      joinedAt: new Date(m.joined_at).toISOString(),
    })),
    invitations: invitations.map((i) => ({
      id: i.id,
      email: i.email,
      role: i.role,
      expiresAt: new Date(i.expires_at).toISOString(),
    })),
  };
}

export type MemberChange =
  { ok: true } | { ok: false; reason: "forbidden" | "refused"; message: string } | PeopleThrottle;

/** Only a signed-in person whose role manages members (members:write) acts here; keys never do. */
async function actingAs(db: Db, principal: Principal): Promise<{ token: string; organizationId: string } | null> {
  if (principal.via !== "user_session" || !principal.sessionId || !principal.organizationId) return null;
  if (!principal.scopes.has("members:write")) return null;
  const token = await sessionTokenOf(db, principal.sessionId);
  return token ? { token, organizationId: principal.organizationId } : null;
}

const notMember: MemberChange = { ok: false, reason: "refused", message: "No such member in this organization." };

const forbidden: MemberChange = {
  ok: false,
  reason: "forbidden",
  message: "Your role cannot manage the members of this organization.",
};

/** better-auth's refusals (an owner's role, the last owner, an existing member) as a sentence for the page. */
function refused(error: unknown): MemberChange {
  const code = authErrorCode(error);
  if (code === null) throw error;
  const message = (error as { body?: { message?: unknown } }).body?.message;
  return { ok: false, reason: "refused", message: typeof message === "string" ? message : code };
}

/**
 * The roles a member may give, inviting or changing someone's: every role for an owner; for anyone else all but
 * owner (only an owner makes an owner, lockedTarget's rule and better-auth's). The Members page offers these only.
 */
export function assignableRoles(actorRole: string | undefined): readonly Role[] {
  return actorRole === "owner" ? ROLES : ROLES.filter((role) => role !== "owner");
}

/**
 * Invites someone by email with a role; the mail carries a link to /accept-invitation. Counted per inviter and per
 * address (lib/people/request-limit.ts). Inviting an address again replaces its pending invitation.
 */
export async function inviteMember(
  db: Db,
  principal: Principal,
  input: { email: string; role: Role },
  headers: HeadersLike,
): Promise<MemberChange> {
  const actor = await actingAs(db, principal);
  if (!actor) return forbidden;
  const wait = await takePeopleRequest("invitation", principal.userId ?? "", headers);
  if (wait !== null) return wait;
  let invitation: { id: string; email: string };
  try {
    // The invitation and its audit event commit together.
    invitation = await db.transaction(async (tx) => {
      const created = await authInTransaction(tx).api.createInvitation({
        headers: sessionHeaders(actor.token),
        body: { email: input.email.trim().toLowerCase(), role: input.role, organizationId: actor.organizationId },
      });
      await recordAuditEvent(tx, {
        actor: auditActorOf(principal),
        action: "member.invited",
        billingGroupId: principal.billingGroupId,
        targetType: "invitation",
        targetId: created.id,
        address: clientAddress(headers),
        after: { email: created.email, role: input.role },
      });
      return created;
    });
  } catch (error) {
    return refused(error);
  }
  const mail = invitationMail(await invitationSender(db, actor.organizationId), invitation.id, input.role);
  await sendMail({
    to: invitation.email,
    subject: mail.subject,
    text: mail.text,
    ...(mail.fromName ? { fromName: mail.fromName } : {}),
  });
  return { ok: true };
}

/** Who an invitation is to and from: the organization's name, and its account's reseller's (null: the operator's). */
export interface InvitationSender {
  organizationName: string;
  resellerName: string | null;
}

/**
 * The organization an invitation is to, and the reseller above its account if there is one: its customers' people
 * hear from it (its billing name, else its account's name), as its invoices' mail does (lib/invoices/invoice-mail.ts).
 */
export async function invitationSender(db: Executor, organizationId: string): Promise<InvitationSender> {
  const [org] = await queryRows<{ name: string; group_id: string | null }>(
    db,
    sql`SELECT name, billing_group_id AS group_id FROM organizations WHERE id = ${organizationId}`,
  );
  return {
    organizationName: org?.name ?? "an organization",
    resellerName: org?.group_id ? await resellerNameOf(db, org.group_id) : null,
  };
}

/**
 * An invitation's message, whoever invites (an organization's own admin, the console): the link from configuration
 * (mailLink, never a request's host), in the reseller's name for a reseller's customer (From's display name).
 */
export function invitationMail(
  sender: InvitationSender,
  invitationId: string,
  role: string,
): { subject: string; text: string; fromName: string | null } {
  const link = mailLink(`/accept-invitation?id=${encodeURIComponent(invitationId)}`);
  const by = sender.resellerName ? ` by ${sender.resellerName}` : "";
  return {
    subject: `You are invited to ${sender.organizationName} on Callbook`,
    text:
      `You are invited${by} to join ${sender.organizationName} on Callbook as ${role}. To accept, open:\n\n${link}\n\n` +
      `The invitation is valid for ${INVITATION_DAYS} days.`,
    fromName: sender.resellerName,
  };
}

interface TargetMember {
  id: string;
  user_id: string;
  email: string;
  role: string;
}

/**
 * The member a change targets, locked, with the rule of who may change whom: only an owner changes an owner or makes
 * one, and nobody their own membership (so an organization always keeps an owner). null when it is not a member of
 * the actor's organization (one answer for another organization's member and an unknown one).
 */
async function lockedTarget(
  tx: Tx,
  principal: Principal,
  organizationId: string,
  memberId: string,
  newRole: Role | null,
): Promise<TargetMember | { refused: string } | null> {
  const [target] = await queryRows<TargetMember>(
    tx,
    sql`SELECT m.id, m.user_id, u.email, m.role FROM members m JOIN users u ON u.id = m.user_id
      WHERE m.id = ${memberId} AND m.organization_id = ${organizationId} FOR UPDATE OF m`,
  );
  if (!target) return null;
  if (target.user_id === principal.userId) return { refused: "You cannot change or remove your own membership." };
  if (principal.role !== "owner" && (target.role === "owner" || newRole === "owner")) {
    return { refused: "Only an owner can change an owner or make someone owner." };
  }
  return target;
}

/**
 * Gives a member another role, and records `member.role_changed` in the same transaction. Their sessions in the
 * organization end (lib/people/end-sessions.ts): they sign in again to work with the new role, in every app process
 * at their next request (the trigger of migration 0014).
 */
export async function changeMemberRole(
  db: Db,
  principal: Principal,
  input: { memberId: string; role: Role },
  address: string | null = null,
): Promise<MemberChange> {
  const actor = await actingAs(db, principal);
  if (!actor) return forbidden;
  const result = await db.transaction(async (tx): Promise<MemberChange> => {
    const target = await lockedTarget(tx, principal, actor.organizationId, input.memberId, input.role);
    if (!target) return notMember;
    if ("refused" in target) return { ok: false, reason: "refused", message: target.refused };
    await tx.execute(sql`UPDATE members SET role = ${input.role} WHERE id = ${target.id}`);
    await endSessionsIn(tx, target.user_id, actor.organizationId);
    await recordAuditEvent(tx, {
      actor: auditActorOf(principal),
      action: "member.role_changed",
      billingGroupId: principal.billingGroupId,
      targetType: "member",
      targetId: target.id,
      address,
      before: { email: target.email, role: target.role },
      after: { email: target.email, role: input.role },
    });
    return { ok: true };
  });
  // This process at once (on PostgreSQL the notification arrives after the statement returns).
  if (result.ok) principalCacheFor(db).invalidate();
  return result;
}

/** Removes a member (`member.removed` in the same transaction); their next request is refused, in every process. */
export async function removeMember(
  db: Db,
  principal: Principal,
  input: { memberId: string },
  address: string | null = null,
): Promise<MemberChange> {
  const actor = await actingAs(db, principal);
  if (!actor) return forbidden;
  const result = await db.transaction(async (tx): Promise<MemberChange> => {
    const target = await lockedTarget(tx, principal, actor.organizationId, input.memberId, null);
    if (!target) return notMember;
    if ("refused" in target) return { ok: false, reason: "refused", message: target.refused };
    await tx.execute(sql`DELETE FROM members WHERE id = ${target.id}`);
    await endSessionsIn(tx, target.user_id, actor.organizationId);
    await recordAuditEvent(tx, {
      actor: auditActorOf(principal),
      action: "member.removed",
      billingGroupId: principal.billingGroupId,
      targetType: "member",
      targetId: target.id,
      address,
      before: { email: target.email, role: target.role },
    });
    return { ok: true };
  });
  if (result.ok) principalCacheFor(db).invalidate();
  return result;
}
