import { randomBytes } from "node:crypto";
import { sql } from "drizzle-orm";
import * as oidc from "openid-client";
import { recordAuditEvent, type AuditActor } from "@/lib/audit/record-audit-event";
import { clientAddress, siteOrigin } from "@/lib/auth/request-origin";
import { createSessionToken, SESSION_TTL_SECONDS } from "@/lib/auth/session-token";
import { queryRows, type Db } from "@/lib/db/client";
import { processSingleton } from "@/lib/runtime/process-singleton";
import { takePeopleRequest, type PeopleThrottle } from "./request-limit";
import type { PersonSession } from "./sign-in";
import {
  emailDomain,
  isLoopbackIssuer,
  SSO_CALLBACK_PATH,
  ssoProviderById,
  ssoProviderForEmail,
  type SsoProvider,
} from "./sso-providers";
import { authRowId } from "./auth-row-id";

// OIDC single sign-on (docs/contract.md §16), the authorization code flow as a confidential client, through
// openid-client: PKCE (S256), `state` and `nonce` generated per attempt and checked on the way back, the ID token's
// signature (the issuer's JWKS), issuer, audience and expiry verified. The attempt lives in auth_verifications for
// ten minutes, named by a random cookie of this browser, and is used once: a callback without the cookie, with
// another state, or whose ID token carries another nonce is refused.

type HeadersLike = { get(name: string): string | null };

const ATTEMPT_TTL_SECONDS = 10 * 60;
const DISCOVERY_TTL_MS = 60 * 60 * 1000;

interface Attempt {
  providerId: string;
  email: string;
  state: string;
  nonce: string;
  codeVerifier: string;
  next: string;
}

export type SsoStartResult =
  | { ok: true; authorizationUrl: string; attemptId: string }
  /** no_provider: no organization verified the email's domain; unavailable: its issuer did not answer discovery. */
  | { ok: false; reason: "no_provider" | "unavailable" }
  | PeopleThrottle;

export type SsoFinishResult =
  | { ok: true; session: PersonSession; next: string; joined: boolean }
  /**
   * expired: no attempt for this browser (no cookie, used already, older than ten minutes); refused: the provider's
   * answer failed a check (state, PKCE, nonce, signature, issuer, audience) or was an error; unverified: the email
   * is not verified by the provider; domain: the email's domain is not verified for the organization; not_member:
   * the platform's SSO signs in its members only.
   */
  | { ok: false; reason: "expired" | "refused" | "unverified" | "domain" | "not_member" };

/** The provider's discovery document and client, fetched once an hour per process (and again on any change). */
async function configurationOf(provider: SsoProvider): Promise<oidc.Configuration> {
  const cache = processSingleton(
    "sso-discovery",
    () => new Map<string, { at: number; config: Promise<oidc.Configuration> }>(),
  );
  const key = `${provider.id}:${provider.updatedAt}`;
  const cached = cache.get(key);
  if (cached && Date.now() - cached.at < DISCOVERY_TTL_MS) return cached.config;
  const issuer = new URL(provider.issuer);
  const config = oidc.discovery(
    issuer,
    provider.clientId,
    { client_secret: provider.clientSecret() },
    oidc.ClientSecretBasic(provider.clientSecret()),
    {
      // The ID token's signature is checked against the issuer's JWKS even though it came straight from the token
      // endpoint over TLS; plain http only for an issuer on this machine (development, the tests).
      execute: [oidc.enableNonRepudiationChecks, ...(isLoopbackIssuer(issuer) ? [oidc.allowInsecureRequests] : [])],
      timeout: 10,
    },
  );
  for (const [k, v] of cache)
    if (k.startsWith(`${provider.id}:`) || Date.now() - v.at >= DISCOVERY_TTL_MS) cache.delete(k);
  cache.set(key, { at: Date.now(), config });
  config.catch(() => cache.delete(key));
  return config;
}

function redirectUri(headers: HeadersLike): string {
  return `${siteOrigin(headers)}${SSO_CALLBACK_PATH}`;
}

/**
 * Starts a sign-in with the organization that verified the email's domain: stores the attempt and returns the
 * provider's authorization URL (code flow, S256 PKCE challenge, state, nonce, the email as login_hint) and the
 * attempt id for the browser's cookie. Counted like a password sign-in, per address and per email.
 */
export async function startSsoSignIn(
  db: Db,
  input: { email: string; next: string },
  headers: HeadersLike,
): Promise<SsoStartResult> {
  const email = input.email.trim().toLowerCase();
  const wait = await takePeopleRequest("sign-in", email, headers);
  if (wait !== null) return wait;
  const provider = await ssoProviderForEmail(db, email);
  if (!provider) return { ok: false, reason: "no_provider" };
  let config: oidc.Configuration;
  try {
    config = await configurationOf(provider);
  } catch (error) {
    console.error(`[sso] discovery of ${provider.issuer} failed:`, error);
    return { ok: false, reason: "unavailable" };
  }
  const attempt: Attempt = {
    providerId: provider.id,
    email,
    state: oidc.randomState(),
    nonce: oidc.randomNonce(),
    codeVerifier: oidc.randomPKCECodeVerifier(),
    next: input.next,
  };
  const attemptId = randomBytes(32).toString("base64url");
  await db.execute(sql`INSERT INTO auth_verifications (id, identifier, value, expires_at)
    VALUES (${authRowId("ver")}, ${`sso:${attemptId}`}, ${JSON.stringify(attempt)},
      now() + make_interval(secs => ${ATTEMPT_TTL_SECONDS}))`);
  const url = oidc.buildAuthorizationUrl(config, {
    redirect_uri: redirectUri(headers),
    response_type: "code",
    scope: "openid email profile",
    code_challenge: await oidc.calculatePKCECodeChallenge(attempt.codeVerifier),
    code_challenge_method: "S256",
    state: attempt.state,
    nonce: attempt.nonce,
    login_hint: email,
  });
  return { ok: true, authorizationUrl: url.href, attemptId };
}

/** The attempt named by the browser's cookie, deleted as it is read (each is used once), or null. */
async function takeAttempt(db: Db, attemptId: string): Promise<Attempt | null> {
  const [row] = await queryRows<{ value: string; live: boolean }>(
    db,
    sql`DELETE FROM auth_verifications WHERE identifier = ${`sso:${attemptId}`}
      RETURNING value, expires_at > now() AS live`,
  );
  return row?.live ? (JSON.parse(row.value) as Attempt) : null;
}

interface Identity {
  sub: string;
  email: string;
  emailVerified: boolean;
  name: string | null;
}

/**
 * The person the provider vouches for: the verified ID token's claims, completed from the userinfo endpoint (for
 * the same `sub`) when the token does not carry the email, as conforming providers do.
 */
async function identityOf(
  config: oidc.Configuration,
  tokens: Awaited<ReturnType<typeof oidc.authorizationCodeGrant>>,
): Promise<Identity> {
  const idToken = tokens.claims();
  if (!idToken) throw new Error("no ID token");
  let claims: Record<string, unknown> = idToken;
  if (typeof idToken.email !== "string" || idToken.email_verified === undefined) {
    claims = { ...(await oidc.fetchUserInfo(config, tokens.access_token, idToken.sub)), ...idToken };
  }
  return {
    sub: idToken.sub,
    email: typeof claims.email === "string" ? claims.email.trim().toLowerCase() : "",
    // Only a boolean true: a missing claim or "true" as text is not a verified address.
    emailVerified: claims.email_verified === true,
    name: typeof claims.name === "string" && claims.name.trim() ? claims.name.trim().slice(0, 200) : null,
  };
}

/**
 * Finishes a sign-in from the provider's redirect: the attempt (cookie), the code exchanged with the PKCE verifier,
 * state and nonce compared, the ID token verified; then the email must be verified by the provider and its domain
 * one the organization verified. The person is found by this provider's `sub` (linked at their first SSO sign-in),
 * else by email; a person not yet a member of a billing group's organization joins with the provider's default role
 * (viewer unless the operator chose another), someone with no account gets one (no password); the platform admits
 * its members only. A new session in that organization, audited.
 */
export async function finishSsoSignIn(
  db: Db,
  input: { query: URLSearchParams; attemptId: string | null },
  headers: HeadersLike,
): Promise<SsoFinishResult> {
  const attempt = input.attemptId ? await takeAttempt(db, input.attemptId) : null;
  if (!attempt) return { ok: false, reason: "expired" };
  const provider = await ssoProviderById(db, attempt.providerId);
  if (!provider) return { ok: false, reason: "expired" };
  const address = clientAddress(headers);
  const fail = async (
    reason: "refused" | "unverified" | "domain" | "not_member",
    detail: string,
    email = attempt.email,
  ) => {
    console.warn(`[sso] sign-in refused for ${email} (${provider.issuer}): ${detail}`);
    await recordAuditEvent(db, {
      actor: { type: "user", id: null, label: email.slice(0, 320) },
      action: "user.sign_in_failed",
      billingGroupId: provider.billingGroupId,
      targetType: "user",
      targetId: null,
      address,
      after: { method: "sso", reason, email: email.slice(0, 320) },
    });
    return { ok: false as const, reason };
  };
  let identity: Identity;
  try {
    const config = await configurationOf(provider);
    const currentUrl = new URL(`${redirectUri(headers)}?${input.query}`);
    const tokens = await oidc.authorizationCodeGrant(config, currentUrl, {
      pkceCodeVerifier: attempt.codeVerifier,
      expectedState: attempt.state,
      expectedNonce: attempt.nonce,
      idTokenExpected: true,
    });
    identity = await identityOf(config, tokens);
  } catch (error) {
    return fail("refused", error instanceof Error ? `${error.name}: ${error.message}` : String(error));
  }
  if (!identity.emailVerified) return fail("unverified", "email_verified is not true", identity.email);
  if (!identity.email || !provider.domains.includes(emailDomain(identity.email))) {
    return fail("domain", "the email's domain is not verified for the organization", identity.email);
  }
  const opened = await openSsoSession(db, provider, identity, headers);
  if (!opened) return fail("not_member", "not a member of the platform (staff do not join by SSO)", identity.email);
  return { ok: true, session: opened.session, next: attempt.next, joined: opened.joined };
}

async function openSsoSession(
  db: Db,
  provider: SsoProvider,
  identity: Identity,
  headers: HeadersLike,
): Promise<{ session: PersonSession; joined: boolean } | null> {
  const providerKey = `sso:${provider.id}`;
  const address = clientAddress(headers);
  return db.transaction(async (tx) => {
    const [linked] = await queryRows<{ id: string; email: string }>(
      tx,
      sql`SELECT u.id, u.email FROM auth_accounts a JOIN users u ON u.id = a.user_id
        WHERE a.provider_id = ${providerKey} AND a.account_id = ${identity.sub}`,
    );
    const [byEmail] = linked
      ? [linked]
      : await queryRows<{ id: string; email: string }>(
          tx,
          sql`SELECT id, email FROM users WHERE email = ${identity.email}`,
        );
    const userId = byEmail?.id ?? authRowId("usr");
    const email = byEmail?.email ?? identity.email;
    const [existing] = byEmail
      ? await queryRows<{ id: string; role: string }>(
          tx,
          sql`SELECT id, role FROM members WHERE organization_id = ${provider.organizationId} AND user_id = ${userId}`,
        )
      : [];
    // The platform's members see every customer and their costs: nobody joins it by signing in, only staff the
    // operator added sign in with it.
    if (!existing && provider.billingGroupId === null) return null;
    if (!byEmail) {
      await tx.execute(sql`INSERT INTO users (id, name, email, email_verified)
        VALUES (${userId}, ${identity.name ?? identity.email}, ${identity.email}, true)`);
    } else if (!linked) {
      // The organization's provider verified this address, in a domain the operator verified for it.
      await tx.execute(sql`UPDATE users SET email_verified = true, updated_at = now() WHERE id = ${userId}`);
    }
    if (!linked) {
      await tx.execute(sql`INSERT INTO auth_accounts (id, account_id, provider_id, user_id)
        VALUES (${authRowId("acc")}, ${identity.sub}, ${providerKey}, ${userId})`);
    }
    const actor: AuditActor = { type: "user", id: userId, label: email };
    const member = existing
      ? { ...existing, joined: false }
      : {
          id: authRowId("mem"),
          role: provider.defaultRole,
          joined: true,
        };
    if (member.joined) {
      await tx.execute(sql`INSERT INTO members (id, organization_id, user_id, role)
        VALUES (${member.id}, ${provider.organizationId}, ${userId}, ${member.role})`);
      await recordAuditEvent(tx, {
        actor,
        action: "member.joined",
        billingGroupId: provider.billingGroupId,
        targetType: "member",
        targetId: member.id,
        address,
        after: { email, role: member.role, method: "sso", newAccount: !byEmail },
      });
    }
    const sessionId = authRowId("uss");
    const [session] = await queryRows<{ expires_at: Date | string }>(
      tx,
      sql`INSERT INTO auth_sessions (id, token, user_id, expires_at, ip_address, user_agent, active_organization_id)
        VALUES (${sessionId}, ${randomBytes(32).toString("base64url")}, ${userId},
          now() + make_interval(secs => ${SESSION_TTL_SECONDS}), ${address}, ${headers.get("user-agent") ?? ""},
          ${provider.organizationId})
        RETURNING expires_at`,
    );
    await recordAuditEvent(tx, {
      actor,
      action: "user.signed_in",
      billingGroupId: provider.billingGroupId,
      targetType: "user",
      targetId: userId,
      address,
      after: { organizationId: provider.organizationId, method: "sso", issuer: provider.issuer },
    });
    const expiresAt = new Date(session.expires_at);
    return {
      joined: member.joined,
      session: {
        id: sessionId,
        cookieToken: createSessionToken(sessionId, Math.floor(expiresAt.getTime() / 1000)),
        expiresAt,
      },
    };
  });
}
