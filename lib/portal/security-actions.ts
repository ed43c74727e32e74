"use server";

import { cookies, headers } from "next/headers";
import { redirect } from "next/navigation";
import QRCode from "qrcode";
import { clientAddress, isSecureHeaders } from "@/lib/auth/request-origin";
import { SESSION_TTL_SECONDS, sessionCookieName } from "@/lib/auth/session-token";
import { getDb } from "@/lib/db/client";
import { passkeyRegistrationOptions, registerPasskey, removePasskey } from "@/lib/people/passkeys";
import { setTwoFactorRequirement } from "@/lib/people/require-two-factor";
import {
  confirmTotpEnrollment,
  disableTotp,
  regenerateRecoveryCodes,
  startTotpEnrollment,
  type RotatedSession,
  type TwoFactorFailure,
} from "@/lib/people/two-factor";
import { ceremonyChallenge, ceremonyCookieName } from "./ceremony-cookie";
import { getSignedInPrincipal } from "./session";

// The Security page's actions (server actions: Next checks that the post comes from this site's page). Each acts
// as the signed-in person (lib/people/two-factor.ts, lib/people/passkeys.ts); a member whose organization requires
// a second factor they lack may use them too (getSignedInPrincipal), and nothing else.

/** What the enrollment and recovery-code forms show next (the codes only in this answer, never in a URL). */
export type SecurityState =
  | { step: "idle"; error?: string }
  | { step: "confirm"; totpURI: string; qrDataUrl: string; recoveryCodes: string[]; error?: string }
  | { step: "codes"; recoveryCodes: string[] };

function field(form: FormData, name: string): string {
  const value = form.get(name);
  return typeof value === "string" ? value.slice(0, 256) : "";
}

async function person() {
  const principal = await getSignedInPrincipal();
  if (!principal) redirect("/sign-in?next=%2Fsecurity");
  return principal;
}

function failureText(failure: TwoFactorFailure): string {
  return failure.reason === "throttled"
    ? `Too many attempts: wait ${failure.retryAfterSeconds} seconds and try again.`
    : failure.message;
}

/** The portal cookie for the session that replaced the one in use (lib/people/two-factor.ts rotates it). */
async function keepRotatedSession(rotated: RotatedSession): Promise<void> {
  const secure = isSecureHeaders(await headers());
  (await cookies()).set(sessionCookieName(secure), rotated.cookieToken, {
    path: "/",
    maxAge: SESSION_TTL_SECONDS,
    httpOnly: true,
    sameSite: "lax",
    secure,
  });
}

export async function startTotpAction(_: SecurityState, form: FormData): Promise<SecurityState> {
  const principal = await person();
  const started = await startTotpEnrollment(await getDb(), principal, field(form, "password"), await headers());
  if (!started.ok) return { step: "idle", error: failureText(started) };
  const qrDataUrl = await QRCode.toDataURL(started.totpURI, { margin: 1, width: 192, errorCorrectionLevel: "M" });
  return { step: "confirm", totpURI: started.totpURI, qrDataUrl, recoveryCodes: started.recoveryCodes };
}

/**
 * The code that puts TOTP in force. Its answer sets the cookie of the rotated session, and Next then renders the page
 * anew (the client's form state with it): the recovery codes were shown with the QR code, before this step.
 */
export async function confirmTotpAction(_: SecurityState, form: FormData): Promise<SecurityState> {
  const principal = await person();
  const h = await headers();
  const confirmed = await confirmTotpEnrollment(await getDb(), principal, field(form, "code"), h, clientAddress(h));
  if (!confirmed.ok) return { step: "idle", error: failureText(confirmed) };
  await keepRotatedSession(confirmed);
  redirect("/security?done=enabled");
}

export async function regenerateCodesAction(_: SecurityState, form: FormData): Promise<SecurityState> {
  const principal = await person();
  const h = await headers();
  const result = await regenerateRecoveryCodes(await getDb(), principal, field(form, "password"), h, clientAddress(h));
  if (!result.ok) return { step: "idle", error: failureText(result) };
  return { step: "codes", recoveryCodes: result.recoveryCodes };
}

export async function disableTotpAction(_: SecurityState, form: FormData): Promise<SecurityState> {
  const principal = await person();
  const h = await headers();
  const result = await disableTotp(await getDb(), principal, field(form, "password"), h, clientAddress(h));
  if (!result.ok) return { step: "idle", error: failureText(result) };
  await keepRotatedSession(result);
  redirect("/security?done=disabled");
}

export async function requireTwoFactorAction(form: FormData): Promise<void> {
  const principal = await person();
  const on = field(form, "require") === "on";
  const result = await setTwoFactorRequirement(await getDb(), principal, on, clientAddress(await headers()));
  if (!result.ok) redirect(`/security?error=${result.reason}`);
  redirect(`/security?done=${on ? "required" : "not_required"}`);
}

/** Options for the browser's passkey registration; the challenge goes in the cb_passkey cookie. */
export async function passkeyOptionsAction(): Promise<Record<string, unknown> | null> {
  const principal = await person();
  const ceremony = await passkeyRegistrationOptions(await getDb(), principal);
  if (!ceremony) return null;
  const secure = isSecureHeaders(await headers());
  // Next percent-encodes the value itself, as ceremonySetCookie does for the sign-in page's routes.
  (await cookies()).set(ceremonyCookieName("passkey", secure), ceremony.challenge, {
    path: "/",
    maxAge: 300,
    httpOnly: true,
    sameSite: "strict",
    secure,
  });
  return ceremony.options;
}

/** The browser's new credential (the JSON of navigator.credentials.create), named by the person. */
export async function registerPasskeyAction(
  response: Record<string, unknown>,
  name: string,
): Promise<{ ok: boolean; message?: string }> {
  const principal = await person();
  const h = await headers();
  const secure = isSecureHeaders(h);
  const challenge = ceremonyChallenge(h.get("cookie"), "passkey", secure);
  if (!challenge) return { ok: false, message: "The passkey took too long. Try again." };
  const result = await registerPasskey(await getDb(), principal, { response, challenge, name: name.slice(0, 100) }, h);
  (await cookies()).delete({ name: ceremonyCookieName("passkey", secure), path: "/" });
  return result.ok ? { ok: true } : { ok: false, message: "message" in result ? result.message : "Refused." };
}

export async function removePasskeyAction(form: FormData): Promise<void> {
  const principal = await person();
  const result = await removePasskey(
    await getDb(),
    principal,
    field(form, "passkeyId"),
    clientAddress(await headers()),
  );
  redirect(result.ok ? "/security?done=passkey_removed" : "/security?error=not_found");
}
