import { sql } from "drizzle-orm";
import { auditActorOf } from "@/lib/audit/actor";
import { recordAuditEvent } from "@/lib/audit/record-audit-event";
import type { Principal } from "@/lib/auth/principal";
import { clientAddress, siteOrigin } from "@/lib/auth/request-origin";
import { queryRows, type Db, type Tx } from "@/lib/db/client";
import { authFor, authInTransaction, sessionHeaders } from "./auth";
import { authCookieHeader, authCookieValue } from "./auth-cookies";
import { authErrorCode } from "./auth-error";
import { takePeopleRequest, type PeopleThrottle } from "./request-limit";
import { openInFirstOrganization, type PersonSignInResult } from "./sign-in";

// Passkeys (WebAuthn, docs/contract.md §15) through better-auth's passkey plugin (@simplewebauthn/server): a
// signed-in person registers one on the Security page; anyone signs in with one from the sign-in page. Each ceremony
// is two calls: the options (a challenge better-auth keeps for 5 minutes, named by its signed cookie, which the
// portal carries in its own cookie) and the browser's answer, checked against the site's origin (PUBLIC_BASE_URL or
// the request's own, never the Origin header alone) and the relying party of lib/people/auth.ts.

type HeadersLike = { get(name: string): string | null };

/** better-auth's passkey plugin's challenge cookie. */
const CHALLENGE_COOKIE = "better-auth-passkey";

/** What the browser's navigator.credentials call needs (PublicKeyCredential*OptionsJSON), and the challenge's name. */
export interface PasskeyCeremony {
  options: Record<string, unknown>;
  challenge: string;
}

export interface PasskeySummary {
  id: string;
  name: string | null;
  createdAt: string;
  deviceType: string;
  backedUp: boolean;
}

export type PasskeyChange =
  { ok: true } | { ok: false; reason: "forbidden" | "refused" | "not_found"; message: string } | PeopleThrottle;

function personOf(principal: Principal): { userId: string; sessionId: string } | null {
  if (principal.via !== "user_session" || !principal.userId || !principal.sessionId) return null;
  return { userId: principal.userId, sessionId: principal.sessionId };
}

async function sessionToken(executor: Db | Tx, sessionId: string): Promise<string | null> {
  const [row] = await queryRows<{ token: string }>(
    executor,
    sql`SELECT token FROM auth_sessions WHERE id = ${sessionId}`,
  );
  return row?.token ?? null;
}

/** A person's passkeys, oldest first (never their public keys). */
export async function listPasskeys(db: Db, userId: string): Promise<PasskeySummary[]> {
  const rows = await queryRows<{
    id: string;
    name: string | null;
    created_at: Date | string | null;
    device_type: string;
    backed_up: boolean;
  }>(
    db,
    sql`SELECT id, name, created_at, device_type, backed_up FROM passkeys WHERE user_id = ${userId}
      ORDER BY created_at, id`,
  );
  return rows.map((r) => ({
    id: r.id,
    name: r.name,
    createdAt: new Date(r.created_at ?? 0).toISOString(),
    deviceType: r.device_type,
    backedUp: r.backed_up,
  }));
}

/** Options for registering a passkey for the signed-in person (their existing ones excluded). */
export async function passkeyRegistrationOptions(db: Db, principal: Principal): Promise<PasskeyCeremony | null> {
  const person = personOf(principal);
  if (!person) return null;
  const token = await sessionToken(db, person.sessionId);
  if (!token) return null;
  const result = await authFor(db).api.generatePasskeyRegistrationOptions({
    headers: sessionHeaders(token),
    query: { authenticatorAttachment: undefined },
    returnHeaders: true,
  });
  const challenge = authCookieValue(result.headers, CHALLENGE_COOKIE);
  if (!challenge) throw new Error("better-auth made passkey options without a challenge cookie");
  return { options: result.response as unknown as Record<string, unknown>, challenge };
}

/** Checks the browser's new credential and keeps it (`passkey.added`, in the same transaction). */
export async function registerPasskey(
  db: Db,
  principal: Principal,
  input: { response: unknown; challenge: string; name: string },
  headers: HeadersLike,
): Promise<PasskeyChange> {
  const person = personOf(principal);
  if (!person) return { ok: false, reason: "forbidden", message: "Only a person signed in adds a passkey." };
  try {
    return await db.transaction(async (tx): Promise<PasskeyChange> => {
      const token = await sessionToken(tx, person.sessionId);
      if (!token) return { ok: false, reason: "forbidden", message: "The session has ended." };
      const callHeaders = sessionHeaders(token);
      callHeaders.set("cookie", authCookieHeader(CHALLENGE_COOKIE, input.challenge));
      callHeaders.set("origin", siteOrigin(headers));
      const added = (await authInTransaction(tx).api.verifyPasskeyRegistration({
        headers: callHeaders,
        body: { response: input.response, name: input.name.trim().slice(0, 100) || "Passkey" },
      })) as { id: string; name?: string };
      await recordAuditEvent(tx, {
        actor: auditActorOf(principal),
        action: "passkey.added",
        billingGroupId: principal.billingGroupId,
        targetType: "user",
        targetId: person.userId,
        address: clientAddress(headers),
        after: { passkeyId: added.id, name: added.name ?? null },
      });
      return { ok: true };
    });
  } catch (error) {
    if (authErrorCode(error) === null) throw error;
    return { ok: false, reason: "refused", message: "The passkey could not be verified. Try again." };
  }
}

/** Removes one of the signed-in person's passkeys (`passkey.removed`). */
export async function removePasskey(
  db: Db,
  principal: Principal,
  passkeyId: string,
  address: string | null,
): Promise<PasskeyChange> {
  const person = personOf(principal);
  if (!person) return { ok: false, reason: "forbidden", message: "Only a person signed in removes a passkey." };
  return db.transaction(async (tx): Promise<PasskeyChange> => {
    const [removed] = await queryRows<{ id: string; name: string | null }>(
      tx,
      sql`DELETE FROM passkeys WHERE id = ${passkeyId} AND user_id = ${person.userId} RETURNING id, name`,
    );
    if (!removed) return { ok: false, reason: "not_found", message: "No such passkey." };
    await recordAuditEvent(tx, {
      actor: auditActorOf(principal),
      action: "passkey.removed",
      billingGroupId: principal.billingGroupId,
      targetType: "user",
      targetId: person.userId,
      address,
      before: { passkeyId: removed.id, name: removed.name },
    });
    return { ok: true };
  });
}

/** Options for signing in with a passkey: any of the site's (discoverable credentials; no account named). */
export async function passkeySignInOptions(db: Db): Promise<PasskeyCeremony> {
  const result = await authFor(db).api.generatePasskeyAuthenticationOptions({
    headers: new Headers(),
    returnHeaders: true,
  });
  const challenge = authCookieValue(result.headers, CHALLENGE_COOKIE);
  if (!challenge) throw new Error("better-auth made passkey options without a challenge cookie");
  return { options: result.response as unknown as Record<string, unknown>, challenge };
}

/**
 * Signs a person in with a passkey: a verified assertion opens a session like a password and a second factor do
 * (a passkey is both: the device, and the PIN or biometric that unlocked it). Counted against the address and the
 * credential like a password sign-in.
 */
export async function signInWithPasskey(
  db: Db,
  input: { response: { id?: unknown }; challenge: string },
  headers: HeadersLike,
): Promise<PersonSignInResult> {
  const credential = typeof input.response.id === "string" ? input.response.id.slice(0, 512) : "";
  const wait = await takePeopleRequest("sign-in", `passkey:${credential}`, headers);
  if (wait !== null) return wait;
  let token: string;
  try {
    const result = await authFor(db).api.verifyPasskeyAuthentication({
      headers: new Headers({
        cookie: authCookieHeader(CHALLENGE_COOKIE, input.challenge),
        origin: siteOrigin(headers),
        "user-agent": headers.get("user-agent") ?? "",
      }),
      // The browser's JSON as it came: @simplewebauthn/server checks every field of it.
      body: { response: input.response as never },
    });
    token = result.session.token;
  } catch (error) {
    if (authErrorCode(error) === null) throw error;
    return { ok: false, reason: "invalid" };
  }
  const session = await openInFirstOrganization(db, token, clientAddress(headers), "passkey");
  if (!session) return { ok: false, reason: "no_organization" };
  return { ok: true, session };
}
