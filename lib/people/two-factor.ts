import { sql } from "drizzle-orm";
import { auditActorOf } from "@/lib/audit/actor";
import { recordAuditEvent } from "@/lib/audit/record-audit-event";
import type { Principal } from "@/lib/auth/principal";
import { principalCacheFor } from "@/lib/auth/principal-cache";
import { createSessionToken } from "@/lib/auth/session-token";
import { queryRows, type Db, type Tx } from "@/lib/db/client";
import { authFor, authInTransaction, sessionHeaders } from "./auth";
import { issuedSessionToken } from "./auth-cookies";
import { authErrorCode } from "./auth-error";
import { takePeopleRequest, type PeopleThrottle } from "./request-limit";

// TOTP with recovery codes (docs/contract.md §15), through better-auth's twoFactor plugin: it generates and encrypts
// the secret and the codes, checks codes, and flips users.two_factor_enabled. Each change runs on a better-auth
// instance bound to one transaction (authInTransaction) with its audit event, and rotates the person's sessions: the
// one in use is replaced by a new one (a new cookie), every other one is ended.

type HeadersLike = { get(name: string): string | null };

export interface SecondFactorStatus {
  totp: boolean;
  /** Unused recovery codes (null without TOTP). */
  recoveryCodesLeft: number | null;
}

/** Whether a person has TOTP on, and how many recovery codes they have left. */
export async function secondFactorStatus(db: Db, userId: string): Promise<SecondFactorStatus> {
  const [row] = await queryRows<{ two_factor_enabled: boolean }>(
    db,
    sql`SELECT two_factor_enabled FROM users WHERE id = ${userId}`,
  );
  if (!row?.two_factor_enabled) return { totp: false, recoveryCodesLeft: null };
  const codes = await authFor(db)
    .api.viewBackupCodes({ body: { userId } })
    .then((r) => r.backupCodes.length)
    .catch(() => null);
  return { totp: true, recoveryCodesLeft: codes };
}

export type TwoFactorFailure =
  /** password: the password is wrong; code: the code is wrong; state: TOTP already on, or not on. */
  { ok: false; reason: "forbidden" | "password" | "code" | "state" | "required"; message: string } | PeopleThrottle;

export interface RotatedSession {
  /** The portal cookie's value for the session that replaced the one in use. */
  cookieToken: string;
  expiresAt: Date;
}

interface Person {
  userId: string;
  sessionId: string;
}

function personOf(principal: Principal): Person | null {
  if (principal.via !== "user_session" || !principal.userId || !principal.sessionId) return null;
  return { userId: principal.userId, sessionId: principal.sessionId };
}

const forbidden: TwoFactorFailure = {
  ok: false,
  reason: "forbidden",
  message: "Only a person signed in with their own account sets up a second factor.",
};

/** better-auth's refusals as a reason the page can say. Anything that is not one of its errors is rethrown. */
function refusal(error: unknown): TwoFactorFailure {
  const code = authErrorCode(error);
  if (code === null) throw error;
  if (code === "INVALID_PASSWORD") return { ok: false, reason: "password", message: "The password is not right." };
  if (code === "INVALID_CODE" || code === "INVALID_BACKUP_CODE") {
    return { ok: false, reason: "code", message: "The code is not right, or has expired. Try the current one." };
  }
  return { ok: false, reason: "state", message: code };
}

/** Every attempt (a password, a code) counts against the person and the address, like sign-in does. */
async function throttled(person: Person, headers: HeadersLike): Promise<TwoFactorFailure | null> {
  return takePeopleRequest("second-factor", `user:${person.userId}`, headers);
}

async function sessionToken(executor: Db | Tx, sessionId: string): Promise<string | null> {
  const [row] = await queryRows<{ token: string }>(
    executor,
    sql`SELECT token FROM auth_sessions WHERE id = ${sessionId}`,
  );
  return row?.token ?? null;
}

/**
 * Ends every session of the person but the one better-auth just issued (it already deleted the one in use), and
 * returns the portal cookie for the new one.
 */
async function keepOnly(tx: Tx, userId: string, issuedToken: string | null): Promise<RotatedSession> {
  const [issued] = await queryRows<{ id: string; expires_at: Date | string }>(
    tx,
    sql`SELECT id, expires_at FROM auth_sessions WHERE token = ${issuedToken ?? ""} AND user_id = ${userId}`,
  );
  if (!issued) throw new Error("better-auth issued no session for the second-factor change");
  await tx.execute(sql`DELETE FROM auth_sessions WHERE user_id = ${userId} AND id <> ${issued.id}`);
  const expiresAt = new Date(issued.expires_at);
  return { cookieToken: createSessionToken(issued.id, Math.floor(expiresAt.getTime() / 1000)), expiresAt };
}

/**
 * Step one of turning TOTP on: checks the password and makes a secret and recovery codes, not yet in force. Returns
 * the otpauth URI for an authenticator app and the codes, to be shown this once (with the URI: the next step replaces
 * the session, and the page with it). Nothing is audited until the person confirms with a code.
 */
export async function startTotpEnrollment(
  db: Db,
  principal: Principal,
  password: string,
  headers: HeadersLike,
): Promise<{ ok: true; totpURI: string; recoveryCodes: string[] } | TwoFactorFailure> {
  const person = personOf(principal);
  if (!person) return forbidden;
  const limited = await throttled(person, headers);
  if (limited) return limited;
  const token = await sessionToken(db, person.sessionId);
  if (!token) return forbidden;
  try {
    const enabled = await authFor(db).api.enableTwoFactor({
      headers: sessionHeaders(token),
      body: { password, issuer: "Callbook", method: "totp" },
    });
    if (enabled.method !== "totp") return { ok: false, reason: "state", message: "No authenticator secret was made." };
    return { ok: true, totpURI: enabled.totpURI, recoveryCodes: enabled.backupCodes };
  } catch (error) {
    return refusal(error);
  }
}

/**
 * Step two: a code from the authenticator app puts TOTP in force (`two_factor.enabled`), with the recovery codes
 * made at step one. Returns them, and the session that replaces the one in use.
 */
export async function confirmTotpEnrollment(
  db: Db,
  principal: Principal,
  code: string,
  headers: HeadersLike,
  address: string | null,
): Promise<({ ok: true; recoveryCodes: string[] } & RotatedSession) | TwoFactorFailure> {
  const person = personOf(principal);
  if (!person) return forbidden;
  const limited = await throttled(person, headers);
  if (limited) return limited;
  try {
    const result = await db.transaction(async (tx) => {
      const token = await sessionToken(tx, person.sessionId);
      if (!token) return null;
      const auth = authInTransaction(tx);
      const verified = await auth.api.verifyTOTP({
        headers: sessionHeaders(token),
        body: { code: code.trim() },
        returnHeaders: true,
      });
      const rotated = await keepOnly(tx, person.userId, issuedSessionToken(verified.headers));
      const { backupCodes } = await auth.api.viewBackupCodes({ body: { userId: person.userId } });
      await recordAuditEvent(tx, {
        actor: auditActorOf(principal),
        action: "two_factor.enabled",
        billingGroupId: principal.billingGroupId,
        targetType: "user",
        targetId: person.userId,
        address,
        before: { totp: false },
        after: { totp: true },
      });
      return { ok: true as const, recoveryCodes: backupCodes, ...rotated };
    });
    principalCacheFor(db).invalidate();
    return result ?? forbidden;
  } catch (error) {
    return refusal(error);
  }
}

/** Turns TOTP off after the password (`two_factor.disabled`); refused while the organization requires it. */
export async function disableTotp(
  db: Db,
  principal: Principal,
  password: string,
  headers: HeadersLike,
  address: string | null,
): Promise<({ ok: true } & RotatedSession) | TwoFactorFailure> {
  const person = personOf(principal);
  if (!person) return forbidden;
  const limited = await throttled(person, headers);
  if (limited) return limited;
  const [organization] = await queryRows<{ require_two_factor: boolean }>(
    db,
    sql`SELECT require_two_factor FROM organizations WHERE id = ${principal.organizationId ?? ""}`,
  );
  if (organization?.require_two_factor) {
    return {
      ok: false,
      reason: "required",
      message: "Your organization requires a second factor: it cannot be turned off.",
    };
  }
  try {
    const result = await db.transaction(async (tx) => {
      const token = await sessionToken(tx, person.sessionId);
      if (!token) return null;
      const disabled = await authInTransaction(tx).api.disableTwoFactor({
        headers: sessionHeaders(token),
        body: { password },
        returnHeaders: true,
      });
      const rotated = await keepOnly(tx, person.userId, issuedSessionToken(disabled.headers));
      await recordAuditEvent(tx, {
        actor: auditActorOf(principal),
        action: "two_factor.disabled",
        billingGroupId: principal.billingGroupId,
        targetType: "user",
        targetId: person.userId,
        address,
        before: { totp: true },
        after: { totp: false },
      });
      return { ok: true as const, ...rotated };
    });
    principalCacheFor(db).invalidate();
    return result ?? forbidden;
  } catch (error) {
    return refusal(error);
  }
}

/**
 * New recovery codes after the password (`two_factor.recovery_codes_regenerated`): the old ones stop working. The
 * sessions stay: the privilege is the same.
 */
export async function regenerateRecoveryCodes(
  db: Db,
  principal: Principal,
  password: string,
  headers: HeadersLike,
  address: string | null,
): Promise<{ ok: true; recoveryCodes: string[] } | TwoFactorFailure> {
  const person = personOf(principal);
  if (!person) return forbidden;
  const limited = await throttled(person, headers);
  if (limited) return limited;
  try {
    const result = await db.transaction(async (tx) => {
      const token = await sessionToken(tx, person.sessionId);
      if (!token) return null;
      const { backupCodes } = await authInTransaction(tx).api.generateBackupCodes({
        headers: sessionHeaders(token),
        body: { password },
      });
      await recordAuditEvent(tx, {
        actor: auditActorOf(principal),
        action: "two_factor.recovery_codes_regenerated",
        billingGroupId: principal.billingGroupId,
        targetType: "user",
        targetId: person.userId,
        address,
        after: { count: backupCodes.length },
      });
      return { ok: true as const, recoveryCodes: backupCodes };
    });
    return result ?? forbidden;
  } catch (error) {
    return refusal(error);
  }
}
