import { sql } from "drizzle-orm";
import { beforeAll, expect, it, vi } from "vitest";
import { authenticate } from "@/lib/auth/authenticate";
import { findSessionPrincipal } from "@/lib/auth/find-key";
import type { Principal } from "@/lib/auth/principal";
import { principalCacheFor, type PrincipalCache } from "@/lib/auth/principal-cache";
import { verifySessionToken } from "@/lib/auth/session-token";
import { createBillingGroup } from "@/lib/billing/groups";
import { queryRows, type Db } from "@/lib/db/client";
import { ApiError } from "@/lib/errors/api-error";
import { describeOnEngines } from "@/lib/testing/describe-on-engines";
import { secretOfOtpauthUri, totpCode } from "@/lib/testing/totp";
import { waitUntil } from "@/lib/testing/wait-until";
import { addPerson, setMembership } from "./add-person";
import { passkeyRegistrationOptions, passkeySignInOptions, removePasskey, signInWithPasskey } from "./passkeys";
import { setTwoFactorRequirement, setTwoFactorRequirementByOperator } from "./require-two-factor";
import { acceptInvitation, findInvitation } from "./accept-invitation";
import { inviteMember } from "./members";
import { signInPerson, verifySecondFactor } from "./sign-in";
import {
  confirmTotpEnrollment,
  disableTotp,
  regenerateRecoveryCodes,
  secondFactorStatus,
  startTotpEnrollment,
} from "./two-factor";

process.env.SESSION_SECRET ??= "two-factor-test-secret";

const headers = new Headers({ host: "portal.test", "user-agent": "vitest" });
let serial = 0;
const email = (who: string) => `${who}-${++serial}@two-factor.test`;
const PASSWORD = "correct horse battery";

describeOnEngines("second factor", (handle) => {
  let db: Db;
  let cache: PrincipalCache;
  let groupId: string;
  beforeAll(async () => {
    db = handle().db;
    cache = principalCacheFor(db);
    await waitUntil(() => cache.active, "the LISTEN to be active");
    groupId = (await createBillingGroup(db, { name: "Two-factor Ltd", currency: "USD" })).id;
  });

  const principalOf = async (cookieToken: string) =>
    findSessionPrincipal(db, verifySessionToken(cookieToken)!.sessionId, cache);

  async function signedIn(address: string): Promise<Principal> {
    const result = await signInPerson(db, { email: address, password: PASSWORD }, headers);
    if (!result.ok) throw new Error(`sign-in refused: ${result.reason}`);
    return (await principalOf(result.session.cookieToken))!;
  }

  /** A person with TOTP on: their secret, recovery codes and the session that replaced the one they enrolled in. */
  async function enrolled(role: "viewer" | "admin" | "owner" = "viewer") {
    const person = await addPerson(db, {
      email: email(role),
      name: role,
      password: PASSWORD,
      role,
      organization: groupId,
    });
    const principal = await signedIn(person.email);
    const started = await startTotpEnrollment(db, principal, PASSWORD, headers);
    if (!started.ok) throw new Error(`enrollment refused: ${started.reason}`);
    const secret = secretOfOtpauthUri(started.totpURI);
    const confirmed = await confirmTotpEnrollment(db, principal, totpCode(secret), headers, "192.0.2.7");
    if (!confirmed.ok) throw new Error(`confirmation refused: ${confirmed.reason}`);
    return {
      person,
      secret,
      recoveryCodes: confirmed.recoveryCodes,
      principal: (await principalOf(confirmed.cookieToken))!,
    };
  }

  async function auditActions(targetId: string): Promise<string[]> {
    const rows = await queryRows<{ action: string }>(
      db,
      sql`SELECT action FROM audit_events WHERE target_id = ${targetId} ORDER BY id`,
    );
    return rows.map((r) => r.action);
  }

  it("enrolling asks the password and a code; the session in use is replaced, the others end", async () => {
    const person = await addPerson(db, {
      email: email("enrol"),
      name: "E",
      password: PASSWORD,
      role: "viewer",
      organization: groupId,
    });
    const principal = await signedIn(person.email);
    const elsewhere = await signedIn(person.email);
    expect(await startTotpEnrollment(db, principal, "not the password", headers)).toMatchObject({
      ok: false,
      reason: "password",
    });
    const started = await startTotpEnrollment(db, principal, PASSWORD, headers);
    if (!started.ok) throw new Error(started.reason);
    expect(started.totpURI).toMatch(/^otpauth:\/\/totp\/Callbook:/);
    // Not in force before a code confirms it: the password alone still signs in.
    expect((await secondFactorStatus(db, person.userId)).totp).toBe(false);
    const secret = secretOfOtpauthUri(started.totpURI);
    const wrong = String((Number(totpCode(secret)) + 1) % 1_000_000).padStart(6, "0");
    expect(await confirmTotpEnrollment(db, principal, wrong, headers, null)).toMatchObject({
      ok: false,
      reason: "code",
    });
    const confirmed = await confirmTotpEnrollment(db, principal, totpCode(secret), headers, "192.0.2.7");
    if (!confirmed.ok) throw new Error(confirmed.reason);
    expect(confirmed.recoveryCodes).toHaveLength(10);
    expect(await secondFactorStatus(db, person.userId)).toEqual({ totp: true, recoveryCodesLeft: 10 });
    expect(await findSessionPrincipal(db, principal.sessionId!, cache)).toBeNull();
    expect(await findSessionPrincipal(db, elsewhere.sessionId!, cache)).toBeNull();
    const rotated = await principalOf(confirmed.cookieToken);
    expect(rotated).toMatchObject({ userId: person.userId, organizationId: principal.organizationId, role: "viewer" });
    expect(rotated!.sessionId).not.toBe(principal.sessionId);
    const [event] = await queryRows<{ action: string; address: string; before: unknown; after: unknown }>(
      db,
      sql`SELECT action, address, before, after FROM audit_events
        WHERE target_id = ${person.userId} AND action LIKE 'two_factor.%'`,
    );
    expect(event).toEqual({
      action: "two_factor.enabled",
      address: "192.0.2.7",
      before: { totp: false },
      after: { totp: true },
    });
  });

  it("a password sign-in then asks a code: TOTP, or a recovery code that works once", async () => {
    const { person, secret, recoveryCodes } = await enrolled();
    const first = await signInPerson(db, { email: person.email, password: PASSWORD }, headers);
    if (first.ok || first.reason !== "second_factor")
      throw new Error(`expected a second step, got ${JSON.stringify(first)}`);
    const wrong = String((Number(totpCode(secret)) + 500_000) % 1_000_000).padStart(6, "0");
    expect(await verifySecondFactor(db, { challenge: first.challenge, code: wrong, kind: "totp" }, headers)).toEqual({
      ok: false,
      reason: "code",
    });
    const byTotp = await verifySecondFactor(
      db,
      { challenge: first.challenge, code: totpCode(secret), kind: "totp" },
      headers,
    );
    if (!byTotp.ok) throw new Error(byTotp.reason);
    expect(await principalOf(byTotp.session.cookieToken)).toMatchObject({ userId: person.userId, role: "viewer" });
    // The challenge is spent.
    expect(
      await verifySecondFactor(db, { challenge: first.challenge, code: totpCode(secret), kind: "totp" }, headers),
    ).toEqual({ ok: false, reason: "expired" });

    const second = await signInPerson(db, { email: person.email, password: PASSWORD }, headers);
    if (second.ok || second.reason !== "second_factor") throw new Error("expected a second step");
    const byRecovery = await verifySecondFactor(
      db,
      { challenge: second.challenge, code: recoveryCodes[0], kind: "recovery" },
      headers,
    );
    expect(byRecovery.ok).toBe(true);
    expect((await secondFactorStatus(db, person.userId)).recoveryCodesLeft).toBe(9);
    const third = await signInPerson(db, { email: person.email, password: PASSWORD }, headers);
    if (third.ok || third.reason !== "second_factor") throw new Error("expected a second step");
    expect(
      await verifySecondFactor(db, { challenge: third.challenge, code: recoveryCodes[0], kind: "recovery" }, headers),
    ).toEqual({ ok: false, reason: "code" });
    const failures = await queryRows<{ after: unknown }>(
      db,
      sql`SELECT after FROM audit_events WHERE target_id = ${person.userId} AND action = 'user.sign_in_failed'
        ORDER BY id`,
    );
    expect(failures.map((f) => f.after)).toContainEqual({ factor: "recovery" });
  });

  it("new recovery codes replace the old ones; turning TOTP off asks the password and rotates the session", async () => {
    const { person, recoveryCodes, principal } = await enrolled();
    expect(await regenerateRecoveryCodes(db, principal, "wrong password", headers, null)).toMatchObject({
      ok: false,
      reason: "password",
    });
    const regenerated = await regenerateRecoveryCodes(db, principal, PASSWORD, headers, null);
    if (!regenerated.ok) throw new Error(regenerated.reason);
    expect(regenerated.recoveryCodes).toHaveLength(10);
    expect(regenerated.recoveryCodes).not.toContain(recoveryCodes[0]);
    const pending = await signInPerson(db, { email: person.email, password: PASSWORD }, headers);
    if (pending.ok || pending.reason !== "second_factor") throw new Error("expected a second step");
    expect(
      await verifySecondFactor(db, { challenge: pending.challenge, code: recoveryCodes[1], kind: "recovery" }, headers),
    ).toEqual({ ok: false, reason: "code" });

    expect(await disableTotp(db, principal, "wrong password", headers, null)).toMatchObject({ reason: "password" });
    const disabled = await disableTotp(db, principal, PASSWORD, headers, null);
    if (!disabled.ok) throw new Error(disabled.reason);
    expect(await findSessionPrincipal(db, principal.sessionId!, cache)).toBeNull();
    expect(await principalOf(disabled.cookieToken)).toMatchObject({ userId: person.userId });
    expect(await signInPerson(db, { email: person.email, password: PASSWORD }, headers)).toMatchObject({ ok: true });
    expect(await auditActions(person.userId)).toEqual(
      expect.arrayContaining(["two_factor.enabled", "two_factor.recovery_codes_regenerated", "two_factor.disabled"]),
    );
  });

  it("an organization that requires a second factor: members without it have no scopes until they enroll", async () => {
    const owner = await addPerson(db, {
      email: email("owner"),
      name: "O",
      password: PASSWORD,
      role: "owner",
      organization: groupId,
    });
    const ownerPrincipal = await signedIn(owner.email);
    expect(await setTwoFactorRequirement(db, ownerPrincipal, true, null)).toMatchObject({
      ok: false,
      reason: "enroll_first",
    });
    const admin = await enrolled("admin");
    const member = await addPerson(db, {
      email: email("member"),
      name: "M",
      password: PASSWORD,
      role: "billing",
      organization: groupId,
    });
    const memberPrincipal = await signedIn(member.email);
    expect(memberPrincipal.scopes.size).toBeGreaterThan(0);
    expect(await setTwoFactorRequirement(db, admin.principal, true, "192.0.2.8")).toEqual({ ok: true });
    await waitUntil(
      async () => (await findSessionPrincipal(db, memberPrincipal.sessionId!, cache))?.twoFactorRequired === true,
      "the requirement to reach the member's principal",
    );
    const gated = (await findSessionPrincipal(db, memberPrincipal.sessionId!, cache))!;
    expect(gated.scopes.size).toBe(0);
    // /v1 with such a session's cookie: 403 two_factor_required.
    const fresh = await signInPerson(db, { email: member.email, password: PASSWORD }, headers);
    if (!fresh.ok) throw new Error(fresh.reason);
    const refusal = await authenticate(
      new Request("http://portal.test/v1/calls", { headers: { cookie: `cb_session=${fresh.session.cookieToken}` } }),
      db,
      cache,
    ).catch((e: unknown) => e);
    expect(refusal).toBeInstanceOf(ApiError);
    expect((refusal as ApiError).code).toBe("two_factor_required");
    // The admin has TOTP: unaffected.
    expect((await findSessionPrincipal(db, admin.principal.sessionId!, cache))?.scopes.has("members:write")).toBe(true);
    // The member may still enroll; once they have, they cannot turn it off while it is required.
    const started = await startTotpEnrollment(db, gated, PASSWORD, headers);
    if (!started.ok) throw new Error(started.reason);
    const confirmed = await confirmTotpEnrollment(
      db,
      gated,
      totpCode(secretOfOtpauthUri(started.totpURI)),
      headers,
      null,
    );
    if (!confirmed.ok) throw new Error(confirmed.reason);
    const enrolledMember = (await principalOf(confirmed.cookieToken))!;
    expect(enrolledMember.twoFactorRequired).toBeUndefined();
    expect(enrolledMember.scopes.has("calls:read")).toBe(true);
    expect(await disableTotp(db, enrolledMember, PASSWORD, headers, null)).toMatchObject({ reason: "required" });

    // The operator's switch (CLI) and the audit trail.
    expect(await setTwoFactorRequirementByOperator(db, groupId, false)).toBe(true);
    const events = await queryRows<{ actor_type: string; before: unknown; after: unknown }>(
      db,
      sql`SELECT actor_type, before, after FROM audit_events WHERE action = 'organization.two_factor_required'
        AND billing_group_id = ${groupId} ORDER BY id`,
    );
    expect(events).toEqual([
      { actor_type: "user", before: { requireTwoFactor: false }, after: { requireTwoFactor: true } },
      { actor_type: "cli", before: { requireTwoFactor: true }, after: { requireTwoFactor: false } },
    ]);
    expect(await setTwoFactorRequirementByOperator(db, "platform", true)).toBe(true);
    expect(await setTwoFactorRequirementByOperator(db, "platform", false)).toBe(true);
  });

  it("passkey ceremonies: options name the relying party and a challenge; a forged answer signs nobody in", async () => {
    const person = await addPerson(db, {
      email: email("passkey"),
      name: "P",
      password: PASSWORD,
      role: "viewer",
      organization: groupId,
    });
    const principal = await signedIn(person.email);
    const registration = await passkeyRegistrationOptions(db, principal);
    expect(registration?.options).toMatchObject({ rp: { id: "localhost", name: "Callbook" } });
    expect(registration?.challenge).toMatch(/\./);
    const signIn = await passkeySignInOptions(db);
    expect(signIn.options).toMatchObject({ rpId: "localhost" });
    const forged = { id: "bm90LWEta2V5", rawId: "bm90LWEta2V5", type: "public-key", response: {} };
    expect(await signInWithPasskey(db, { response: forged, challenge: signIn.challenge }, headers)).toEqual({
      ok: false,
      reason: "invalid",
    });
    expect(await removePasskey(db, principal, "pk_unknown", null)).toMatchObject({ ok: false, reason: "not_found" });
  });

  it("the operator's role change ends the member's sessions in that organization", async () => {
    const person = await addPerson(db, {
      email: email("cli-role"),
      name: "C",
      password: PASSWORD,
      role: "viewer",
      organization: groupId,
    });
    const before = await signedIn(person.email);
    expect(await setMembership(db, { email: person.email, organization: groupId, role: "billing" })).toBe(true);
    // The operator's change reaches the cache as every process hears of it: by NOTIFY, a moment later.
    await waitUntil(
      async () => (await findSessionPrincipal(db, before.sessionId!, cache)) === null,
      "the ended session to leave the cache",
    );
    expect((await signedIn(person.email)).role).toBe("billing");
  });

  it("a person with TOTP accepts an invitation with their password, joins, and signs in with their code (issue 28 item 10)", async () => {
    const { person, secret } = await enrolled("viewer");
    const otherGroup = (await createBillingGroup(db, { name: "Inviting Ltd", currency: "USD" })).id;
    const inviter = await addPerson(db, {
      email: email("inviter"),
      name: "I",
      password: PASSWORD,
      role: "admin",
      organization: otherGroup,
    });
    const log = vi.spyOn(console, "log").mockImplementation(() => undefined);
    try {
      expect(
        await inviteMember(db, await signedIn(inviter.email), { email: person.email, role: "billing" }, headers),
      ).toEqual({ ok: true });
    } finally {
      log.mockRestore();
    }
    const [invitation] = await queryRows<{ id: string }>(
      db,
      sql`SELECT id FROM invitations WHERE email = ${person.email} AND status = 'pending'`,
    );
    const accepted = await acceptInvitation(db, { invitationId: invitation.id, name: "", password: PASSWORD }, headers);
    expect(accepted).toMatchObject({ ok: false, reason: "second_factor" });
    if (accepted.ok || accepted.reason !== "second_factor") throw new Error("no second factor asked");
    // Joined with the invitation's role; the invitation is used.
    const roles = await queryRows<{ role: string }>(
      db,
      sql`SELECT m.role FROM members m JOIN organizations o ON o.id = m.organization_id
        WHERE m.user_id = ${person.userId} AND o.billing_group_id = ${otherGroup}`,
    );
    expect(roles).toEqual([{ role: "billing" }]);
    expect(await findInvitation(db, invitation.id)).toBeNull();
    const second = await verifySecondFactor(
      db,
      { challenge: accepted.challenge, code: totpCode(secret), kind: "totp" },
      headers,
    );
    expect(second.ok).toBe(true);
  });
});
