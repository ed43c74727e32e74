import { sql } from "drizzle-orm";
import { createSessionToken } from "@/lib/auth/session-token";
import { queryRows, type Db } from "@/lib/db/client";
import { authFor, sessionHeaders } from "./auth";
import { authErrorCode } from "./auth-error";
import { takePeopleRequest } from "./request-limit";
import type { PersonSession } from "./sign-in";

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
  | { ok: false; reason: "throttled"; retryAfterSeconds: number };

/**
 * Accepts an invitation: the one way to become a person here (sign-up is by invitation only). The link was mailed to
 * the address, so following it confirms the email. A new person chooses a name and password; someone who already
 * has an account proves it with their password. They are signed in, in the inviting organization, with its role.
 */
export async function acceptInvitation(
  db: Db,
  input: { invitationId: string; name: string; password: string },
  headers: HeadersLike,
): Promise<AcceptResult> {
  const invitation = await findInvitation(db, input.invitationId);
  const wait = await takePeopleRequest("invitation", invitation?.email ?? input.invitationId, headers);
  if (wait !== null) return { ok: false, reason: "throttled", retryAfterSeconds: wait };
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
  let token: string;
  try {
    token = (await auth.api.signInEmail({ body: { email: invitation.email, password: input.password } })).token;
  } catch (error) {
    if (authErrorCode(error) !== null) return { ok: false, reason: "wrong_password" };
    throw error;
  }
  try {
    await auth.api.acceptInvitation({ headers: sessionHeaders(token), body: { invitationId: invitation.id } });
  } catch (error) {
    if (authErrorCode(error) !== null) return { ok: false, reason: "not_found" };
    throw error;
  }
  const [row] = await queryRows<{ id: string; expires_at: Date | string }>(
    db,
    sql`UPDATE auth_sessions SET active_organization_id = (SELECT organization_id FROM invitations WHERE id = ${invitation.id})
      WHERE token = ${token} RETURNING id, expires_at`,
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
