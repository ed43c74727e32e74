import type { Db } from "@/lib/db/client";
import { authFor } from "./auth";
import { authErrorCode } from "./auth-error";
import { takePeopleRequest } from "./request-limit";

type HeadersLike = { get(name: string): string | null };

export type ResetRequestResult = { ok: true } | { ok: false; reason: "throttled"; retryAfterSeconds: number };

/**
 * Mails a one-time link to /reset-password when the address is a person's; answers the same, in the same time
 * (better-auth does the same lookups either way and the mail is sent in the background), when it is not.
 */
export async function requestPasswordReset(db: Db, email: string, headers: HeadersLike): Promise<ResetRequestResult> {
  const wait = await takePeopleRequest("password-reset", email, headers);
  if (wait !== null) return { ok: false, reason: "throttled", retryAfterSeconds: wait };
  await authFor(db).api.requestPasswordReset({ body: { email: email.trim().toLowerCase() } });
  return { ok: true };
}

export type ResetResult =
  | { ok: true }
  | { ok: false; reason: "invalid_token" | "weak_password" }
  | { ok: false; reason: "throttled"; retryAfterSeconds: number };

/** Sets a new password with a mailed token (once); every session of that person ends. */
export async function resetPassword(
  db: Db,
  input: { token: string; password: string },
  headers: HeadersLike,
): Promise<ResetResult> {
  const wait = await takePeopleRequest("password-reset", `token:${input.token.slice(0, 8)}`, headers);
  if (wait !== null) return { ok: false, reason: "throttled", retryAfterSeconds: wait };
  try {
    await authFor(db).api.resetPassword({ body: { token: input.token, newPassword: input.password } });
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
