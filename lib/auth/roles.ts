import { z } from "zod";
import { effectiveScopes, type Scope } from "./scopes";

/**
 * A member's role in an organization decides the scopes of their session (docs/contract.md §14, README "People,
 * organizations and roles"), so every check written for keys (cost fields only with calls:read_cost) holds for
 * people unchanged.
 */
export const ROLES = ["owner", "admin", "billing", "developer", "viewer"] as const;
export const roleSchema = z.enum(ROLES);
export type Role = z.infer<typeof roleSchema>;

const ROLE_SCOPES: Record<Role, readonly Scope[]> = {
  owner: [
    "calls:read",
    "billing:read",
    "members:read",
    "members:write",
    "keys:read",
    "keys:write",
    "alerts:write",
    "audit:read",
    "limits:write",
  ],
  admin: [
    "calls:read",
    "members:read",
    "members:write",
    "keys:read",
    "keys:write",
    "alerts:write",
    "audit:read",
    "limits:write",
  ],
  // The money pages: pay (billing:read: top-ups, auto-recharge) and the low-balance alerts (alerts:write) (issue 30).
  billing: ["calls:read", "billing:read", "alerts:write"],
  developer: ["calls:read", "keys:read", "keys:write"],
  viewer: ["calls:read"],
};

/**
 * What the operator's own owners and admins add: they run the business from the console (docs/contract.md §14); and
 * a reseller's owners and admins, for the accounts below their own (lib/auth/reach.ts requireProvisioningOf, §21).
 */
export const PROVISIONING_SCOPES: readonly Scope[] = ["accounts:write", "payments:write", "rates:write"];
const PROVISIONING_ROLES: readonly Role[] = ["owner", "admin"];

export interface RoleContext {
  /** A member of the platform organization: the operator's staff, who see every group and its costs. */
  platform: boolean;
  /** The roles the operator let see cost and margin in this member's group (billing_groups.cost_roles). */
  costRoles: readonly string[];
  /** The member's group has accounts below it (a reseller, docs/contract.md "Reseller tiers"). */
  reseller?: boolean;
}

/**
 * The scopes of a role: calls:read_cost only for platform staff and the roles enabled on a reseller's group; the
 * provisioning scopes only for the owners and admins of the platform and of a reseller (a group with children, who
 * provision those alone); and what those imply, as for a key. A customer without children gets none of them.
 */
export function scopesOfRole(role: string, context: RoleContext): Set<Scope> {
  const parsed = roleSchema.safeParse(role);
  if (!parsed.success) return new Set();
  const granted: Scope[] = [...ROLE_SCOPES[parsed.data]];
  if (context.platform || context.costRoles.includes(parsed.data)) granted.push("calls:read_cost");
  if ((context.platform || context.reseller) && PROVISIONING_ROLES.includes(parsed.data))
    granted.push(...PROVISIONING_SCOPES);
  // The implications a key's scopes get (calls:read -> invoices:read, alerts:write -> alerts:read, docs/contract.md
  // §2), from the same function: a role's list without them left every person unable to read an invoice (issue 28).
  return effectiveScopes(granted);
}

/** The rows of the README's and docs/contract.md's roles table, from the table itself. */
export function roleScopeTable(): { role: Role; scopes: readonly Scope[] }[] {
  return ROLES.map((role) => ({ role, scopes: ROLE_SCOPES[role] }));
}

/**
 * What each scope of a role lets a person do in the portal, in the order a description lists them. calls:read_cost
 * is not a role's own (the operator enables it per group), nor are the platform staff's provisioning scopes.
 */
const ABILITIES: readonly { scope: Scope; can: string }[] = [
  { scope: "calls:read", can: "see calls, balance, reports, rates and invoices" },
  { scope: "billing:read", can: "pay (top-ups by card, auto-recharge)" },
  { scope: "alerts:write", can: "set low-balance alerts and webhooks" },
  { scope: "keys:write", can: "create and revoke API keys" },
  { scope: "members:write", can: "invite members and change their roles" },
  { scope: "audit:read", can: "read the audit log" },
  { scope: "limits:write", can: "tighten the account's call and spend limits" },
];

/** What a role lets a customer's member do, from its scopes: what the Members page and the invite form say. */
export function roleAbilities(role: Role): string[] {
  const scopes = scopesOfRole(role, { platform: false, costRoles: [] });
  return ABILITIES.filter((a) => scopes.has(a.scope)).map((a) => a.can);
}

/** roleAbilities as one sentence fragment: "see calls, balance, reports, rates and invoices; pay (...)". */
export function describeRole(role: Role): string {
  return roleAbilities(role).join("; ");
}
