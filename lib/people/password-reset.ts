import { randomBytes } from "node:crypto";
import { sql } from "drizzle-orm";
import { queryRows, type Db } from "@/lib/db/client";
import { enqueueMail } from "@/lib/mail/outbox";
import { authFor, authInTransaction } from "./auth";
import { authErrorCode } from "./auth-error";
import { mailLink } from "./mail-origin";
import { takePeopleRequest, type PeopleThrottle } from "./request-limit";
import { authRowId } from "./auth-row-id";

type HeadersLike = { get(name: string): string | null };

export type ResetRequestResult = { ok: true } | PeopleThrottle;

/** Where work that must not be on the request path goes. */
export type Later = (task: () => Promise<void>) => void;

/** After the answer, in this process; a failure is logged (the person asks again). */
export const inBackground: Later = (task) => {
  setImmediate(() => {
    task().catch((error: unknown) => console.error("[people] password reset mail failed:", error));
  });
};

/** How long a reset link works (better-auth checks it on use). */
const RESET_TOKEN_SECONDS = 60 * 60;

/**
 * Mails a one-time link to /reset-password when the address is a person's, and answers the same, after the same
 * work, when it is not: the request path only counts the attempt and hands the address to `later`, which looks the
 * person up, writes the token and queues the mail (mailResetLink). Nothing on the request path depends on whether the
 * address has an account, so neither does its timing (issue 28 item 7: the token's INSERT and better-auth's extra
 * lookup made a known address ~20 ms slower).
 */
export async function requestPasswordReset(
  db: Db,
  email: string,
  headers: HeadersLike,
  later: Later = inBackground,
): Promise<ResetRequestResult> {
  const wait = await takePeopleRequest("password-reset", email, headers);
  if (wait !== null) return wait;
  const address = email.trim().toLowerCase();
  later(() => mailResetLink(db, address));
  return { ok: true };
}

/**
 * Off the request path: for a person's address, a reset token (better-auth's verification row, which its
 * resetPassword consumes) and the mail carrying it, committed together (lib/mail/outbox.ts sends it); nothing for an
 * address that is nobody's.
 */
export async function mailResetLink(db: Db, email: string): Promise<void> {
  await db.transaction(async (tx) => {
    const [person] = await queryRows<{ id: string; email: string }>(
      tx,
      sql`SELECT id, email FROM users WHERE email = ${email}`,
    );
    if (!person) return;
    const id = authRowId("ver");
    const token = randomBytes(24).toString("base64url");
    await tx.execute(sql`INSERT INTO auth_verifications (id, identifier, value, expires_at)
      VALUES (${id}, ${`reset-password:${token}`}, ${person.id}, now() + ${`${RESET_TOKEN_SECONDS} seconds`}::interval)`);
    await enqueueMail(tx, [
      {
        key: `password-reset:${id}`,
        to: person.email,
        subject: "Reset your Callbook password",
        text: `Someone asked to reset the password of ${person.email}. To choose a new one, open:\n\n${mailLink(`/reset-password?token=${encodeURIComponent(token)}`)}\n\nThe link works once, for an hour. If it was not you, ignore this message.`,
      },
    ]);
  });
}

export type ResetResult = { ok: true } | { ok: false; reason: "invalid_token" | "weak_password" } | PeopleThrottle;

/**
 * Sets a new password with a mailed token (once); every session of that person ends, and so does every other reset
 * link they were sent (issue 28 item 6: older links set the password again after a reset). One transaction, the
 * person's row locked: two links of one person used at once make one change.
 */
export async function resetPassword(
  db: Db,
  input: { token: string; password: string },
  headers: HeadersLike,
): Promise<ResetResult> {
  const wait = await takePeopleRequest("password-reset", `token:${input.token.slice(0, 8)}`, headers);
  if (wait !== null) return wait;
  const identifier = `reset-password:${input.token}`;
  try {
    await db.transaction(async (tx) => {
      const [owner] = await queryRows<{ id: string }>(
        tx,
        sql`SELECT u.id FROM auth_verifications v JOIN users u ON u.id = v.value
          WHERE v.identifier = ${identifier} FOR UPDATE OF u`,
      );
      if (owner) {
        await tx.execute(sql`DELETE FROM auth_verifications
          WHERE value = ${owner.id} AND identifier LIKE 'reset-password:%' AND identifier <> ${identifier}`);
      }
      // Checks the token (unknown, used or expired: INVALID_TOKEN, and the deletion above rolls back), consumes it,
      // sets the password and ends the sessions, in this transaction.
      await authInTransaction(tx).api.resetPassword({ body: { token: input.token, newPassword: input.password } });
    });
  } catch (error) {
    const code = authErrorCode(error);
    if (code === "PASSWORD_TOO_SHORT" || code === "PASSWORD_TOO_LONG") return { ok: false, reason: "weak_password" };
    if (code !== null) return { ok: false, reason: "invalid_token" };
    throw error;
  }
  return { ok: true };
}

/** Confirms an email address with the mailed token. */
export async function verifyEmail(db: Db, token: string): Promise<boolean> {
  try {
    await authFor(db).api.verifyEmail({ query: { token } });
    return true;
  } catch (error) {
    if (authErrorCode(error) !== null) return false;
    throw error;
  }
}
