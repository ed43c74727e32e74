import { randomBytes } from "node:crypto";
import { sql } from "drizzle-orm";
import { CLI_ACTOR } from "@/lib/audit/actor";
import { recordAuditEvent } from "@/lib/audit/record-audit-event";
import type { Role } from "@/lib/auth/roles";
import { queryRows, type Db, type Executor } from "@/lib/db/client";
import { organizationOfGroup, PLATFORM_ORGANIZATION_ID } from "./organizations";
import { decryptClientSecret, encryptClientSecret } from "./sso-client-secret";

// An organization's OIDC single sign-on (docs/contract.md §16): its issuer, client id and secret, the email domains
// the operator verified for it, and the role a person of those domains gets when they first sign in.

/** The path the identity provider sends the browser back to; register `<portal origin>/session/sso/callback`. */
export const SSO_CALLBACK_PATH = "/session/sso/callback";

/** Roles a first SSO sign-in may give: never owner (an owner is made by the operator or another owner). */
export const SSO_JOIN_ROLES = ["viewer", "billing", "developer", "admin"] as const satisfies readonly Role[];
export type SsoJoinRole = (typeof SSO_JOIN_ROLES)[number];

export interface SsoSettings {
  organizationId: string;
  issuer: string;
  clientId: string;
  /** Verified email domains, lower case, sorted. */
  domains: string[];
  defaultRole: SsoJoinRole;
}

export interface SsoProvider extends SsoSettings {
  id: string;
  billingGroupId: string | null;
  /** When the settings last changed: cached discovery documents are keyed by it. */
  updatedAt: string;
  clientSecret(): string;
}

export interface SetSsoInput {
  /** A billing group's id, or "platform". */
  organization: string;
  issuer: string;
  clientId: string;
  /** Required the first time; kept when omitted later. */
  clientSecret?: string;
  domains: string[];
  defaultRole?: SsoJoinRole;
}

/** Bad settings (the CLI prints them as a usage error, nothing changed). */
export class SsoSettingsError extends Error {}

const DOMAIN = /^(?=.{1,253}$)(?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z][a-z0-9-]{0,61}[a-z0-9]$/;
const LOOPBACK = new Set(["127.0.0.1", "[::1]", "localhost"]);

/** http is allowed only for an issuer on this machine (development, the tests' provider); https otherwise. */
export function isLoopbackIssuer(issuer: URL): boolean {
  return issuer.protocol === "http:" && LOOPBACK.has(issuer.hostname);
}

export function normaliseDomain(text: string): string {
  const domain = text.trim().toLowerCase().replace(/^@/, "");
  if (!DOMAIN.test(domain)) throw new SsoSettingsError(`"${text}" is not an email domain (example.com)`);
  return domain;
}

function checkIssuer(text: string): string {
  let url: URL;
  try {
    url = new URL(text.trim());
  } catch {
    throw new SsoSettingsError(`--issuer "${text}" is not a URL`);
  }
  if (url.protocol !== "https:" && !isLoopbackIssuer(url)) {
    throw new SsoSettingsError("--issuer must be an https URL (http only for 127.0.0.1/localhost)");
  }
  if (url.search || url.hash || url.username || url.password) {
    throw new SsoSettingsError("--issuer takes no query, fragment or credentials");
  }
  // Kept as given: the ID token's `iss` must equal it exactly (OpenID Connect Discovery §4.3).
  return text.trim();
}

async function organizationIdOf(db: Executor, organization: string): Promise<string> {
  return organization === "platform" ? PLATFORM_ORGANIZATION_ID : organizationOfGroup(db, organization);
}

interface ProviderRow {
  id: string;
  organization_id: string;
  billing_group_id: string | null;
  issuer: string;
  client_id: string;
  client_secret_encrypted: string;
  default_role: SsoJoinRole;
  updated_at: Date | string;
  domains: string[] | null;
}

const SELECT_PROVIDER = sql`SELECT p.id, p.organization_id, o.billing_group_id, p.issuer, p.client_id,
    p.client_secret_encrypted, p.default_role, p.updated_at,
    (SELECT array_agg(d.domain ORDER BY d.domain) FROM sso_domains d WHERE d.provider_id = p.id) AS domains
  FROM sso_providers p JOIN organizations o ON o.id = p.organization_id`;

function providerOf(row: ProviderRow): SsoProvider {
  return {
    id: row.id,
    organizationId: row.organization_id,
    billingGroupId: row.billing_group_id,
    issuer: row.issuer,
    clientId: row.client_id,
    domains: row.domains ?? [],
    defaultRole: row.default_role,
    updatedAt: new Date(row.updated_at).toISOString(),
    clientSecret: () => decryptClientSecret(row.client_secret_encrypted),
  };
}

function settingsOf(provider: SsoProvider): SsoSettings {
  const { organizationId, issuer, clientId, domains, defaultRole } = provider;
  return { organizationId, issuer, clientId, domains, defaultRole };
}

/**
 * Sets (or replaces) an organization's OIDC provider and its verified domains, audited `sso.configured` (before and
 * after, never the secret). A domain belongs to one organization: one verified elsewhere is refused.
 */
export async function setSsoProvider(db: Db, input: SetSsoInput): Promise<SsoSettings> {
  const issuer = checkIssuer(input.issuer);
  const clientId = input.clientId.trim();
  if (!clientId) throw new SsoSettingsError("--client-id is required");
  const domains = [...new Set(input.domains.map(normaliseDomain))].sort();
  if (domains.length === 0) throw new SsoSettingsError("at least one --domain is required");
  const organizationId = await organizationIdOf(db, input.organization);
  return db.transaction(async (tx) => {
    const [current] = await queryRows<ProviderRow>(
      tx,
      sql`${SELECT_PROVIDER} WHERE p.organization_id = ${organizationId} FOR UPDATE OF p`,
    );
    const secret = input.clientSecret?.trim();
    if (!current && !secret) throw new SsoSettingsError("--client-secret is required the first time");
    const [taken] = await queryRows<{ domain: string }>(
      tx,
      sql`SELECT d.domain FROM sso_domains d JOIN sso_providers p ON p.id = d.provider_id
        WHERE d.domain IN (${sql.join(
          domains.map((d) => sql`${d}`),
          sql`, `,
        )}) AND p.organization_id <> ${organizationId} LIMIT 1`,
    );
    if (taken) throw new SsoSettingsError(`the domain ${taken.domain} is verified for another organization`);
    const id = current?.id ?? `sso_${randomBytes(12).toString("base64url")}`;
    const sealed = secret ? encryptClientSecret(secret) : current!.client_secret_encrypted;
    const defaultRole = input.defaultRole ?? current?.default_role ?? "viewer";
    await tx.execute(sql`INSERT INTO sso_providers (id, organization_id, issuer, client_id, client_secret_encrypted, default_role)
      VALUES (${id}, ${organizationId}, ${issuer}, ${clientId}, ${sealed}, ${defaultRole})
      ON CONFLICT (organization_id) DO UPDATE SET issuer = EXCLUDED.issuer, client_id = EXCLUDED.client_id,
        client_secret_encrypted = EXCLUDED.client_secret_encrypted, default_role = EXCLUDED.default_role,
        updated_at = now()`);
    await tx.execute(sql`DELETE FROM sso_domains WHERE provider_id = ${id}`);
    for (const domain of domains) {
      await tx.execute(sql`INSERT INTO sso_domains (domain, provider_id) VALUES (${domain}, ${id})`);
    }
    const [saved] = await queryRows<ProviderRow>(tx, sql`${SELECT_PROVIDER} WHERE p.id = ${id}`);
    const settings = settingsOf(providerOf(saved));
    await recordAuditEvent(tx, {
      actor: CLI_ACTOR,
      action: "sso.configured",
      billingGroupId: saved.billing_group_id,
      targetType: "organization",
      targetId: organizationId,
      address: null,
      before: current ? settingsOf(providerOf(current)) : null,
      after: { ...settings, clientSecretChanged: Boolean(secret) },
    });
    return settings;
  });
}

/** An organization's SSO settings (never the secret: only whether one is set), or null. */
export async function showSsoProvider(
  db: Db,
  organization: string,
): Promise<(SsoSettings & { clientSecret: "set" }) | null> {
  const organizationId = await organizationIdOf(db, organization);
  const [row] = await queryRows<ProviderRow>(db, sql`${SELECT_PROVIDER} WHERE p.organization_id = ${organizationId}`);
  return row ? { ...settingsOf(providerOf(row)), clientSecret: "set" } : null;
}

/** Removes an organization's SSO (its members keep their accounts and passwords), audited `sso.removed`. */
export async function removeSsoProvider(db: Db, organization: string): Promise<boolean> {
  const organizationId = await organizationIdOf(db, organization);
  return db.transaction(async (tx) => {
    const [row] = await queryRows<ProviderRow>(
      tx,
      sql`${SELECT_PROVIDER} WHERE p.organization_id = ${organizationId} FOR UPDATE OF p`,
    );
    if (!row) return false;
    await tx.execute(sql`DELETE FROM sso_providers WHERE id = ${row.id}`);
    await recordAuditEvent(tx, {
      actor: CLI_ACTOR,
      action: "sso.removed",
      billingGroupId: row.billing_group_id,
      targetType: "organization",
      targetId: organizationId,
      address: null,
      before: settingsOf(providerOf(row)),
    });
    return true;
  });
}

/** The provider whose verified domains include the email's domain, or null. */
export async function ssoProviderForEmail(db: Executor, email: string): Promise<SsoProvider | null> {
  const domain = emailDomain(email.trim());
  if (!domain) return null;
  const [row] = await queryRows<ProviderRow>(
    db,
    sql`${SELECT_PROVIDER} WHERE p.id = (SELECT provider_id FROM sso_domains WHERE domain = ${domain})`,
  );
  return row ? providerOf(row) : null;
}

export async function ssoProviderById(db: Executor, id: string): Promise<SsoProvider | null> {
  const [row] = await queryRows<ProviderRow>(db, sql`${SELECT_PROVIDER} WHERE p.id = ${id}`);
  return row ? providerOf(row) : null;
}

/** The domain of an email address, lower case ("" when it has none). */
export function emailDomain(email: string): string {
  const at = email.lastIndexOf("@");
  return at < 1 ? "" : email.slice(at + 1).toLowerCase();
}
