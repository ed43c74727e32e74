import { sql } from "drizzle-orm";
import { createSessionToken } from "@/lib/auth/session-token";
import { queryRows, type Db } from "@/lib/db/client";
import { authFor } from "./auth";
import { authCookieValue } from "./auth-cookies";
import { authErrorCode } from "./auth-error";
import { takePeopleRequest, type PeopleThrottle } from "./request-limit";
import { TWO_FACTOR_COOKIE, type PersonSession } from "./sign-in";
import { authRowId } from "./auth-row-id";

type HeadersLike = { get(name: string): string | null };

export interface InvitationView {
  id: string;
  email: string;
  role: string;
  organizationName: string;
  /** The address already has an account: accepting asks for its password instead of a new one. */
  personExists: boolean;
}

/** A pending, unexpired invitation, as its page shows it; null for anything else (one answer for all). */
export async function findInvitation(db: Db, invitationId: string): Promise<InvitationView | null> {
  const [row] = await queryRows<{ id: string; email: string; role: string; name: string; exists: boolean }>(
    db,
    sql`SELECT i.id, i.email, i.role, o.name, EXISTS (SELECT 1 FROM users u WHERE u.email = i.email) AS exists
      FROM invitations i JOIN organizations o ON o.id = i.organization_id
      WHERE i.id = ${invitationId} AND i.status = 'pending' AND i.expires_at > now()`,
  );
  return row
    ? { id: row.id, email: row.email, role: row.role, organizationName: row.name, personExists: row.exists }
    : null;
}

export type AcceptResult =
  | { ok: true; session: PersonSession }
  | { ok: false; reason: "not_found" | "wrong_password" | "weak_password" }
  /**
   * The right password of a person with TOTP: they have joined, and sign in with their code next (`challenge` goes
   * to verifySecondFactor, as after a password sign-in).
   */
  | { ok: false; reason: "second_factor"; challenge: string }
  | PeopleThrottle;

/**
 * Accepts an invitation: the one way to become a person here (sign-up is by invitation only). The link was mailed to
 * the address, so following it confirms the email. A new person chooses a name and password; someone who already
 * has an account proves it with their password. They join the inviting organization with its role and are signed
 * in there; a person with TOTP joins and then gives their code, as at every sign-in.
 */
export async function acceptInvitation(
  db: Db,
  input: { invitationId: string; name: string; password: string },
  headers: HeadersLike,
): Promise<AcceptResult> {
  const invitation = await findInvitation(db, input.invitationId);
  const wait = await takePeopleRequest("invitation", invitation?.email ?? input.invitationId, headers);
  if (wait !== null) return wait;
  if (!invitation) return { ok: false, reason: "not_found" };
  const auth = authFor(db);
  const context = await auth.$context;
  if (!invitation.personExists) {
    const { minPasswordLength, maxPasswordLength } = context.password.config;
    if (input.password.length < minPasswordLength || input.password.length > maxPasswordLength) {
      return { ok: false, reason: "weak_password" };
    }
    const user = await context.internalAdapter.createUser(
      {
        email: invitation.email,
        name: input.name.trim() || invitation.email,
        emailVerified: true,
      },
      { method: "email-password" },
    );
    await context.internalAdapter.linkAccount({
      userId: user.id,
      providerId: "credential",
      accountId: user.id,
      password: await context.password.hash(input.password),
    });
  }
  let signedIn: { token?: string; twoFactorRedirect?: boolean };
  let challenge: string | null = null;
  try {
    const result = await auth.api.signInEmail({
      body: { email: invitation.email, password: input.password },
      returnHeaders: true,
    });
    signedIn = result.response as typeof signedIn;
    // better-auth's answer for a person with TOTP: no session, a pending sign-in (lib/people/sign-in.ts).
    if (signedIn.twoFactorRedirect) challenge = authCookieValue(result.headers, TWO_FACTOR_COOKIE);
  } catch (error) {
    if (authErrorCode(error) !== null) return { ok: false, reason: "wrong_password" };
    throw error;
  }
  // The password is proven: join. Not through better-auth's acceptInvitation, which needs a session, and a person
  // with TOTP has none until the code (issue 28 item 10: they got not_found and could not join).
  if (!(await joinByInvitation(db, invitation.id))) return { ok: false, reason: "not_found" };
  if (signedIn.twoFactorRedirect) {
    if (!challenge) throw new Error("better-auth asked for a second factor without a challenge cookie");
    return { ok: false, reason: "second_factor", challenge };
  }
  if (!signedIn.token) throw new Error("better-auth signed in without a session token");
  const [row] = await queryRows<{ id: string; expires_at: Date | string }>(
    db,
    sql`UPDATE auth_sessions SET active_organization_id = (SELECT organization_id FROM invitations WHERE id = ${invitation.id})
      WHERE token = ${signedIn.token} RETURNING id, expires_at`,
  );
  const expiresAt = new Date(row.expires_at);
  return {
    ok: true,
    session: {
      id: row.id,
      cookieToken: createSessionToken(row.id, Math.floor(expiresAt.getTime() / 1000)),
      expiresAt,
    },
  };
}

/**
 * Makes the invited address's person a member with the invitation's role and marks it accepted, in one transaction,
 * once: false when it is no longer pending (accepted meanwhile, cancelled, expired). Someone already a member keeps
 * their role.
 */
async function joinByInvitation(db: Db, invitationId: string): Promise<boolean> {
  return db.transaction(async (tx) => {
    const [accepted] = await queryRows<{ organization_id: string; role: string; user_id: string }>(
      tx,
      sql`UPDATE invitations i SET status = 'accepted' FROM users u
        WHERE i.id = ${invitationId} AND i.status = 'pending' AND i.expires_at > now() AND u.email = i.email
        RETURNING i.organization_id, i.role, u.id AS user_id`,
    );
    if (!accepted) return false;
    await tx.execute(sql`INSERT INTO members (id, organization_id, user_id, role)
      VALUES (${authRowId("mem")}, ${accepted.organization_id}, ${accepted.user_id},
        ${accepted.role ?? "viewer"})
      ON CONFLICT (organization_id, user_id) DO NOTHING`);
    return true;
  });
}
