import { sql, type SQL } from "drizzle-orm";
import { recordAuditEvent, type AuditActor } from "@/lib/audit/record-audit-event";
import { clientAddress } from "@/lib/auth/request-origin";
import { createSessionToken } from "@/lib/auth/session-token";
import { queryRows, type Db } from "@/lib/db/client";
import { authFor } from "./auth";
import { authCookieHeader, authCookieValue } from "./auth-cookies";
import { authErrorCode } from "./auth-error";
import { STAND_IN_HASH, verifyPassword, withCheckedPassword } from "./password";
import { takePeopleRequest, type PeopleThrottle } from "./request-limit";

type HeadersLike = { get(name: string): string | null };

export interface PersonSession {
  /** auth_sessions.id (`uss_`). */
  id: string;
  /** The portal cookie's value: a signed token naming the session (lib/auth/session-token.ts). */
  cookieToken: string;
  expiresAt: Date;
}

export type PersonSignInResult =
  | { ok: true; session: PersonSession }
  /**
   * invalid: unknown email or wrong password (one answer, the same work either way); unverified: the right password
   * of an address not yet confirmed (a new link was mailed); no_organization: the right password of a person who is
   * no longer a member anywhere.
   */
  | { ok: false; reason: "invalid" | "unverified" | "no_organization" }
  | PeopleThrottle
  /**
   * The right password of a person with TOTP: no session yet. `challenge` (better-auth's signed two-factor cookie,
   * valid for 10 minutes) goes with the code to verifySecondFactor.
   */
  | { ok: false; reason: "second_factor"; challenge: string };

/**
 * Signs a person in by email and password (better-auth, argon2id). Every attempt counts against the address and
 * the account (lib/people/request-limit.ts). A new session is made at every sign-in (the caller ends the one the
 * browser held): its token is never one an attacker could have planted. The session's organization is the
 * platform's when the person is staff, else their oldest membership.
 *
 * A wrong password and an unknown email do the same work, here rather than in better-auth (whose unknown email
 * hashed where a known one verified, after one lookup fewer: issue 28 item 7): one lookup, one argon2 verification
 * (against STAND_IN_HASH when there is no password), one audit event. Only the right password goes on to
 * better-auth, which makes the session (or asks for the second factor) without verifying it a second time.
 */
export async function signInPerson(
  db: Db,
  credentials: { email: string; password: string },
  headers: HeadersLike,
): Promise<PersonSignInResult> {
  const wait = await takePeopleRequest("sign-in", credentials.email, headers);
  if (wait !== null) return wait;
  const email = credentials.email.trim().toLowerCase();
  const [person] = await queryRows<SignInCandidate>(
    db,
    sql`SELECT u.id, (SELECT billing_group_id FROM organizations WHERE id = ${FIRST_ORGANIZATION(sql`u.id`)})
        AS billing_group_id,
      (SELECT a.password FROM auth_accounts a WHERE a.user_id = u.id AND a.provider_id = 'credential'
        AND a.account_id = u.id) AS password
      FROM users u WHERE u.email = ${email}`,
  );
  const checked = { hash: person?.password ?? STAND_IN_HASH, password: credentials.password };
  if (!(await verifyPassword(checked))) {
    await recordSignInFailure(db, email, person ?? null, clientAddress(headers));
    return { ok: false, reason: "invalid" };
  }
  const auth = authFor(db);
  let token: string;
  try {
    const result = await withCheckedPassword(checked, () =>
      auth.api.signInEmail({
        body: { email, password: credentials.password, callbackURL: "/" },
        headers: new Headers({ "user-agent": headers.get("user-agent") ?? "" }),
        returnHeaders: true,
      }),
    );
    const answer = result.response as { token?: string; twoFactorRedirect?: boolean };
    if (answer.twoFactorRedirect) {
      const challenge = authCookieValue(result.headers, TWO_FACTOR_COOKIE);
      if (!challenge) throw new Error("better-auth asked for a second factor without a challenge cookie");
      return { ok: false, reason: "second_factor", challenge };
    }
    if (!answer.token) throw new Error("better-auth signed in without a session token");
    token = answer.token;
  } catch (error) {
    const code = authErrorCode(error);
    if (code === "EMAIL_NOT_VERIFIED") return { ok: false, reason: "unverified" };
    if (code === null) throw error;
    // The password changed in between (a reset): refused like any wrong password.
    await recordSignInFailure(db, email, person ?? null, clientAddress(headers));
    return { ok: false, reason: "invalid" };
  }
  const session = await openInFirstOrganization(db, token, clientAddress(headers));
  if (!session) return { ok: false, reason: "no_organization" };
  return { ok: true, session };
}

/** The person an email names, as signInPerson looks them up (the same statement whether or not there is one). */
interface SignInCandidate {
  id: string;
  billing_group_id: string | null;
  /** The credential's argon2 hash; null for a person without a password (single sign-on only). */
  password: string | null;
}

/** better-auth's twoFactor plugin's cookie: the pending sign-in between the password and the code. */
export const TWO_FACTOR_COOKIE = "two_factor";

export type SecondFactorResult =
  | { ok: true; session: PersonSession }
  /** code: a wrong TOTP or recovery code (the challenge stays, up to 5 tries); expired: start again with the password. */
  | { ok: false; reason: "code" | "expired" | "no_organization" }
  | PeopleThrottle;

/**
 * The second step of a password sign-in for a person with TOTP: a code from their authenticator app, or one of
 * their recovery codes (each works once). Counted per address and per pending sign-in's account like the password
 * step. better-auth allows 5 codes per challenge and locks the account's second factor for 15 minutes after 10
 * wrong codes in a row.
 */
export async function verifySecondFactor(
  db: Db,
  input: { challenge: string; code: string; kind: "totp" | "recovery" },
  headers: HeadersLike,
): Promise<SecondFactorResult> {
  const account = await pendingAccount(db, input.challenge);
  const wait = await takePeopleRequest("second-factor", account ? `user:${account.userId}` : input.challenge, headers);
  if (wait !== null) return wait;
  if (!account) return { ok: false, reason: "expired" };
  const auth = authFor(db);
  const callHeaders = new Headers({
    cookie: authCookieHeader(TWO_FACTOR_COOKIE, input.challenge),
    "user-agent": headers.get("user-agent") ?? "",
  });
  const code = input.code.trim();
  let token: string;
  try {
    const result =
      input.kind === "totp"
        ? await auth.api.verifyTOTP({ headers: callHeaders, body: { code: code.replace(/\s+/g, "") } })
        : await auth.api.verifyBackupCode({ headers: callHeaders, body: { code } });
    token = result.token as string;
  } catch (error) {
    const reason = authErrorCode(error);
    if (reason === null) throw error;
    if (reason === "INVALID_CODE" || reason === "INVALID_BACKUP_CODE") {
      await recordSecondFactorFailure(db, account, input.kind, clientAddress(headers));
      return { ok: false, reason: "code" };
    }
    return { ok: false, reason: "expired" };
  }
  const session = await openInFirstOrganization(db, token, clientAddress(headers), input.kind);
  if (!session) return { ok: false, reason: "no_organization" };
  return { ok: true, session };
}

/** The person a pending second-factor sign-in is for (the challenge's signed value names a verification row). */
async function pendingAccount(db: Db, challenge: string): Promise<{ userId: string; email: string } | null> {
  let value: string;
  try {
    value = decodeURIComponent(challenge);
  } catch {
    return null;
  }
  const identifier = value.slice(0, value.lastIndexOf("."));
  if (!identifier.startsWith("2fa-")) return null;
  const [row] = await queryRows<{ user_id: string; email: string }>(
    db,
    sql`SELECT u.id AS user_id, u.email FROM auth_verifications v JOIN users u ON u.id = v.value
      WHERE v.identifier = ${identifier} AND v.expires_at > now()`,
  );
  return row ? { userId: row.user_id, email: row.email } : null;
}

async function recordSecondFactorFailure(
  db: Db,
  account: { userId: string; email: string },
  kind: "totp" | "recovery",
  address: string | null,
): Promise<void> {
  const [person] = await queryRows<{ billing_group_id: string | null }>(
    db,
    sql`SELECT (SELECT billing_group_id FROM organizations WHERE id = ${FIRST_ORGANIZATION(sql`${account.userId}`)})
      AS billing_group_id`,
  );
  await recordAuditEvent(db, {
    actor: { type: "user", id: account.userId, label: account.email },
    action: "user.sign_in_failed",
    billingGroupId: person?.billing_group_id ?? null,
    targetType: "user",
    targetId: account.userId,
    address,
    after: { factor: kind },
  });
}

const FIRST_ORGANIZATION = (userId: SQL) => sql`(SELECT m.organization_id FROM members m
  JOIN organizations o ON o.id = m.organization_id WHERE m.user_id = ${userId}
  ORDER BY o.platform DESC, m.created_at, m.id LIMIT 1)`;

/**
 * Points a fresh session at the person's organization and records `user.signed_in` in the same transaction, or
 * deletes the session when they belong to no organization.
 */
export async function openInFirstOrganization(
  db: Db,
  sessionToken: string,
  address: string | null,
  /** The second factor the sign-in used, if any (kept in the audit event). */
  factor?: "totp" | "recovery" | "passkey",
): Promise<PersonSession | null> {
  const row = await db.transaction(async (tx) => {
    const [opened] = await queryRows<{
      id: string;
      user_id: string;
      email: string;
      expires_at: Date | string;
      organization_id: string | null;
      billing_group_id: string | null;
    }>(
      tx,
      sql`UPDATE auth_sessions s SET active_organization_id = ${FIRST_ORGANIZATION(sql`s.user_id`)}
        FROM users u WHERE u.id = s.user_id AND s.token = ${sessionToken}
        RETURNING s.id, s.user_id, u.email, s.expires_at, s.active_organization_id AS organization_id,
          (SELECT billing_group_id FROM organizations WHERE id = s.active_organization_id) AS billing_group_id`,
    );
    if (!opened) return null;
    if (opened.organization_id === null) {
      await tx.execute(sql`DELETE FROM auth_sessions WHERE id = ${opened.id}`);
      return null;
    }
    const actor: AuditActor = { type: "user", id: opened.user_id, label: opened.email };
    await recordAuditEvent(tx, {
      actor,
      action: "user.signed_in",
      billingGroupId: opened.billing_group_id,
      targetType: "user",
      targetId: opened.user_id,
      address,
      after: { organizationId: opened.organization_id, ...(factor ? { factor } : {}) },
    });
    return opened;
  });
  if (!row) return null;
  const expiresAt = new Date(row.expires_at);
  return {
    id: row.id,
    cookieToken: createSessionToken(row.id, Math.floor(expiresAt.getTime() / 1000)),
    expiresAt,
  };
}

/**
 * `user.sign_in_failed`: for a person's account, in their organization's log; for an address that is nobody's, in
 * the platform's (target null, the address tried kept in `after`).
 */
async function recordSignInFailure(
  db: Db,
  email: string,
  person: SignInCandidate | null,
  address: string | null,
): Promise<void> {
  await recordAuditEvent(db, {
    actor: { type: "user", id: person?.id ?? null, label: email.slice(0, 320) },
    action: "user.sign_in_failed",
    billingGroupId: person?.billing_group_id ?? null,
    targetType: "user",
    targetId: person?.id ?? null,
    address,
    after: person ? null : { email: email.slice(0, 320) },
  });
}

/** The better-auth token of a person's session (for its endpoints that act as the signed-in person). */
export async function sessionTokenOf(db: Db, sessionId: string): Promise<string | null> {
  const [row] = await queryRows<{ token: string }>(db, sql`SELECT token FROM auth_sessions WHERE id = ${sessionId}`);
  return row?.token ?? null;
}
