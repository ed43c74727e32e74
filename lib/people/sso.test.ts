import { sql } from "drizzle-orm";
import { afterAll, beforeAll, expect, it, vi } from "vitest";
import { findSessionPrincipal } from "@/lib/auth/find-key";
import { principalCacheFor, type PrincipalCache } from "@/lib/auth/principal-cache";
import { verifySessionToken } from "@/lib/auth/session-token";
import { createBillingGroup } from "@/lib/billing/groups";
import { queryRows, type Db } from "@/lib/db/client";
import { describeOnEngines } from "@/lib/testing/describe-on-engines";
import { startTestIdp, type TestIdp } from "@/lib/testing/oidc-provider";
import { waitUntil } from "@/lib/testing/wait-until";
import { addPerson } from "./add-person";
import { finishSsoSignIn, startSsoSignIn } from "./sso-sign-in";
import { removeSsoProvider, setSsoProvider, showSsoProvider, SsoSettingsError } from "./sso-providers";

process.env.SESSION_SECRET ??= "people-test-secret";

const headers = new Headers({ host: "portal.test", "user-agent": "vitest" });
const CALLBACK = "http://portal.test/session/sso/callback";
let serial = 0;

describeOnEngines("OIDC single sign-on", (handle, engine) => {
  let db: Db;
  let cache: PrincipalCache;
  let groupId: string;
  let idp: TestIdp;
  const domain = `acme-${engine}.test`;
  const at = (who: string) => `${who}-${++serial}@${domain}`;

  beforeAll(async () => {
    db = handle().db;
    cache = principalCacheFor(db);
    await waitUntil(() => cache.active, "the LISTEN to be active");
    groupId = (await createBillingGroup(db, { name: "Acme", currency: "USD" })).id;
    idp = await startTestIdp({ redirectUris: [CALLBACK] });
    await setSsoProvider(db, {
      organization: groupId,
      issuer: idp.issuer,
      clientId: idp.clientId,
      clientSecret: idp.clientSecret,
      domains: [domain.toUpperCase()],
    });
    vi.spyOn(console, "warn").mockImplementation(() => undefined);
  });
  afterAll(async () => {
    vi.restoreAllMocks();
    await idp?.close();
  });

  /** An account at the provider, and a sign-in started with its email (the URL may be tampered with on the way). */
  async function startedFor(email: string, tamper?: (authorization: URL) => void) {
    const started = await startSsoSignIn(db, { email, next: "/calls" }, headers);
    if (!started.ok) throw new Error(`not started: ${started.reason}`);
    const authorization = new URL(started.authorizationUrl);
    tamper?.(authorization);
    const back = await idp.authorize(authorization.href);
    return { started, authorization, back };
  }

  const finish = (back: URL, attemptId: string | null) =>
    finishSsoSignIn(db, { query: back.searchParams, attemptId }, headers);

  async function principalOf(cookieToken: string) {
    return findSessionPrincipal(db, verifySessionToken(cookieToken)!.sessionId, cache);
  }

  async function userCount(email: string): Promise<number> {
    const rows = await queryRows<{ n: number }>(db, sql`SELECT count(*)::int AS n FROM users WHERE email = ${email}`);
    return rows[0].n;
  }

  it("a person of a verified domain signs in with the provider and joins as viewer; later sign-ins link by sub", async () => {
    const email = at("newcomer");
    idp.addAccount({ sub: `sub-${serial}`, email, emailVerified: true, name: "New Comer" });
    const { started, authorization, back } = await startedFor(email);
    expect(authorization.origin).toBe(idp.issuer);
    expect(authorization.searchParams.get("code_challenge_method")).toBe("S256");
    expect(authorization.searchParams.get("code_challenge")).toMatch(/^[\w-]{43}$/);
    expect(authorization.searchParams.get("state")).toBeTruthy();
    expect(authorization.searchParams.get("nonce")).toBeTruthy();
    expect(authorization.searchParams.get("redirect_uri")).toBe(CALLBACK);
    expect(authorization.searchParams.get("login_hint")).toBe(email);

    const result = await finish(back, started.attemptId);
    if (!result.ok) throw new Error(`refused: ${result.reason}`);
    expect(result).toMatchObject({ next: "/calls", joined: true });
    const principal = await principalOf(result.session.cookieToken);
    expect(principal).toMatchObject({ via: "user_session", role: "viewer", billingGroupId: groupId });
    expect([...principal!.scopes].sort()).toEqual(["calls:read", "invoices:read"]);
    const events = await queryRows<{ action: string; after: Record<string, unknown> }>(
      db,
      sql`SELECT action, after FROM audit_events WHERE actor_label = ${email} ORDER BY id`,
    );
    expect(events.map((e) => e.action)).toEqual(["member.joined", "user.signed_in"]);
    expect(events[1].after).toMatchObject({ method: "sso" });

    // The same attempt cannot be used twice.
    expect(await finish(back, started.attemptId)).toEqual({ ok: false, reason: "expired" });
    // The second time the account is found by the provider's sub; no second person, no second membership.
    const again = await startedFor(email);
    const second = await finish(again.back, again.started.attemptId);
    expect(second).toMatchObject({ ok: true, joined: false });
    expect(await userCount(email)).toBe(1);
  });

  it("an existing member signs in with their role; a person invited before with an unconfirmed email too", async () => {
    const email = at("member");
    await addPerson(db, {
      email,
      name: "M",
      password: "correct horse battery",
      role: "billing",
      organization: groupId,
    });
    idp.addAccount({ sub: `sub-${serial}`, email, emailVerified: true });
    const { started, back } = await startedFor(email);
    const result = await finish(back, started.attemptId);
    if (!result.ok) throw new Error(`refused: ${result.reason}`);
    expect(result.joined).toBe(false);
    expect(await principalOf(result.session.cookieToken)).toMatchObject({ role: "billing" });
  });

  it("PKCE is required: without a challenge the provider refuses; with another challenge the code is refused", async () => {
    const email = at("pkce");
    idp.addAccount({ sub: `sub-${serial}`, email, emailVerified: true });
    const without = await startedFor(email, (url) => {
      url.searchParams.delete("code_challenge");
      url.searchParams.delete("code_challenge_method");
    });
    expect(without.back.searchParams.get("error")).toBe("invalid_request");
    expect(await finish(without.back, without.started.attemptId)).toEqual({ ok: false, reason: "refused" });

    const other = await startedFor(email, (url) =>
      url.searchParams.set("code_challenge", "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM"),
    );
    expect(other.back.searchParams.get("code")).toBeTruthy();
    expect(await finish(other.back, other.started.attemptId)).toEqual({ ok: false, reason: "refused" });
    expect(await userCount(email)).toBe(0);
  });

  it("a tampered state, a missing attempt cookie and another browser's attempt are refused", async () => {
    const email = at("state");
    idp.addAccount({ sub: `sub-${serial}`, email, emailVerified: true });
    const tampered = await startedFor(email);
    tampered.back.searchParams.set("state", "not-the-state");
    expect(await finish(tampered.back, tampered.started.attemptId)).toEqual({ ok: false, reason: "refused" });

    const noCookie = await startedFor(email);
    expect(await finish(noCookie.back, null)).toEqual({ ok: false, reason: "expired" });

    // Login CSRF: the attacker's code and state, delivered to a victim whose browser holds its own attempt.
    const attacker = await startedFor(email);
    const victim = await startSsoSignIn(db, { email, next: "/" }, headers);
    if (!victim.ok) throw new Error("not started");
    expect(await finish(attacker.back, victim.attemptId)).toEqual({ ok: false, reason: "refused" });
    expect(await userCount(email)).toBe(0);
  });

  it("an ID token with another nonce is refused", async () => {
    const email = at("nonce");
    idp.addAccount({ sub: `sub-${serial}`, email, emailVerified: true });
    const { started, back } = await startedFor(email, (url) =>
      url.searchParams.set("nonce", "a-nonce-of-someone-else"),
    );
    expect(back.searchParams.get("code")).toBeTruthy();
    expect(await finish(back, started.attemptId)).toEqual({ ok: false, reason: "refused" });
    expect(await userCount(email)).toBe(0);
  });

  it("an email the provider has not verified is never linked", async () => {
    const email = at("unverified");
    await addPerson(db, { email, name: "U", password: "correct horse battery", role: "admin", organization: groupId });
    idp.addAccount({ sub: `sub-${serial}`, email, emailVerified: false });
    const { started, back } = await startedFor(email);
    expect(await finish(back, started.attemptId)).toEqual({ ok: false, reason: "unverified" });
    const links = await queryRows<{ n: number }>(
      db,
      sql`SELECT count(*)::int AS n FROM auth_accounts a JOIN users u ON u.id = a.user_id
        WHERE u.email = ${email} AND a.provider_id LIKE 'sso:%'`,
    );
    expect(links[0].n).toBe(0);
    const [failed] = await queryRows<{ after: Record<string, unknown> }>(
      db,
      sql`SELECT after FROM audit_events WHERE action = 'user.sign_in_failed' AND actor_label = ${email}`,
    );
    expect(failed.after).toMatchObject({ method: "sso", reason: "unverified" });
  });

  it("a person of another domain is refused, even when the provider vouches for them", async () => {
    const outsider = `mallory-${++serial}@elsewhere.test`;
    idp.addAccount({ sub: `sub-${serial}`, email: outsider, emailVerified: true });
    idp.signInNextAs(outsider);
    const { started, back } = await startedFor(at("typed"));
    expect(await finish(back, started.attemptId)).toEqual({ ok: false, reason: "domain" });
    expect(await userCount(outsider)).toBe(0);
    expect(await startSsoSignIn(db, { email: outsider, next: "/" }, headers)).toEqual({
      ok: false,
      reason: "no_provider",
    });
  });

  it("the platform's SSO signs in its staff only: nobody joins the platform by signing in", async () => {
    const staffDomain = `operator-${engine}.test`;
    await setSsoProvider(db, {
      organization: "platform",
      issuer: idp.issuer,
      clientId: idp.clientId,
      clientSecret: idp.clientSecret,
      domains: [staffDomain],
    });
    const staff = `staff-${++serial}@${staffDomain}`;
    const stranger = `stranger-${++serial}@${staffDomain}`;
    await addPerson(db, {
      email: staff,
      name: "S",
      password: "correct horse battery",
      role: "admin",
      organization: "platform",
    });
    idp.addAccount({ sub: `sub-staff-${serial}`, email: staff, emailVerified: true });
    idp.addAccount({ sub: `sub-stranger-${serial}`, email: stranger, emailVerified: true });
    const refused = await startedFor(stranger);
    expect(await finish(refused.back, refused.started.attemptId)).toEqual({ ok: false, reason: "not_member" });
    expect(await userCount(stranger)).toBe(0);
    const admitted = await startedFor(staff);
    const result = await finish(admitted.back, admitted.started.attemptId);
    if (!result.ok) throw new Error(`refused: ${result.reason}`);
    expect(await principalOf(result.session.cookieToken)).toMatchObject({ role: "admin", billingGroupId: null });
    await removeSsoProvider(db, "platform");
  });

  it("an issuer that is not the one the provider names (discovery's issuer check) cannot start a sign-in", async () => {
    const other = (await createBillingGroup(db, { name: "Impostor", currency: "USD" })).id;
    const impostorDomain = `impostor-${engine}.test`;
    await setSsoProvider(db, {
      organization: other,
      issuer: idp.issuer.replace("127.0.0.1", "localhost"),
      clientId: idp.clientId,
      clientSecret: idp.clientSecret,
      domains: [impostorDomain],
    });
    const error = vi.spyOn(console, "error").mockImplementation(() => undefined);
    expect(await startSsoSignIn(db, { email: `x@${impostorDomain}`, next: "/" }, headers)).toEqual({
      ok: false,
      reason: "unavailable",
    });
    expect(String(error.mock.calls[0]?.[1])).toMatch(/issuer/i);
    await removeSsoProvider(db, other);
  });

  it("the settings: secret encrypted and never shown, one organization per domain, audited set and remove", async () => {
    const [stored] = await queryRows<{ client_secret_encrypted: string }>(
      db,
      sql`SELECT client_secret_encrypted FROM sso_providers`,
    );
    expect(stored.client_secret_encrypted).not.toContain(idp.clientSecret);
    const shown = await showSsoProvider(db, groupId);
    expect(shown).toMatchObject({ issuer: idp.issuer, domains: [domain], defaultRole: "viewer", clientSecret: "set" });
    expect(JSON.stringify(shown)).not.toContain(idp.clientSecret);

    const other = (await createBillingGroup(db, { name: "Other", currency: "USD" })).id;
    const settings = { organization: other, issuer: idp.issuer, clientId: "x", clientSecret: "y" };
    await expect(setSsoProvider(db, { ...settings, domains: [domain] })).rejects.toThrow(SsoSettingsError);
    await expect(setSsoProvider(db, { ...settings, domains: ["not a domain"] })).rejects.toThrow(SsoSettingsError);
    await expect(
      setSsoProvider(db, { ...settings, issuer: "http://idp.example.com", domains: ["other.test"] }),
    ).rejects.toThrow(/https/);
    await setSsoProvider(db, { ...settings, domains: ["other.test"], defaultRole: "developer" });
    expect(await removeSsoProvider(db, other)).toBe(true);
    expect(await removeSsoProvider(db, other)).toBe(false);
    const events = await queryRows<{ action: string; before: unknown; after: unknown }>(
      db,
      sql`SELECT action, before, after FROM audit_events WHERE action LIKE 'sso.%' ORDER BY id`,
    );
    expect(events.map((e) => e.action)).toEqual([
      "sso.configured",
      "sso.configured",
      "sso.removed",
      "sso.configured",
      "sso.removed",
      "sso.configured",
      "sso.removed",
    ]);
    expect(JSON.stringify(events)).not.toContain(idp.clientSecret);
  });
});
