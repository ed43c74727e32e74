import { describe, expect, it } from "vitest";
import { describeRole, roleAbilities, roleScopeTable, ROLES, scopesOfRole } from "./roles";
import { effectiveScopes } from "./scopes";

const customer = { platform: false, costRoles: [] };

describe("role -> scopes", () => {
  it("a viewer reads calls only; billing adds the money (billing:read, alerts); a developer keys; admin and owner members", () => {
    expect([...scopesOfRole("viewer", customer)].sort()).toEqual(["calls:read", "invoices:read"]);
    expect([...scopesOfRole("billing", customer)].sort()).toEqual([
      "alerts:read",
      "alerts:write",
      "billing:read",
      "calls:read",
      "invoices:read",
    ]);
    expect([...scopesOfRole("developer", customer)].sort()).toEqual([
      "calls:read",
      "invoices:read",
      "keys:read",
      "keys:write",
    ]);
    for (const role of ["admin", "owner"]) {
      const scopes = scopesOfRole(role, customer);
      for (const s of ["members:write", "keys:write", "alerts:write", "audit:read"] as const)
        expect(scopes.has(s)).toBe(true);
    }
    expect(scopesOfRole("admin", customer).has("billing:read")).toBe(false);
    expect(scopesOfRole("owner", customer).has("billing:read")).toBe(true);
  });

  it("calls:read_cost only for the roles the group enables, and for every platform role", () => {
    for (const role of ROLES) expect(scopesOfRole(role, customer).has("calls:read_cost")).toBe(false);
    const reseller = { platform: false, costRoles: ["owner", "billing"] };
    expect(ROLES.filter((r) => scopesOfRole(r, reseller).has("calls:read_cost"))).toEqual(["owner", "billing"]);
    for (const role of ROLES)
      expect(scopesOfRole(role, { platform: true, costRoles: [] }).has("calls:read_cost")).toBe(true);
  });

  it("provisioning scopes for the owners and admins of the platform and of a reseller, never a customer's", () => {
    const provisioning = ["accounts:write", "payments:write", "rates:write"] as const;
    const staff = { platform: true, costRoles: [] };
    const reseller = { platform: false, costRoles: [], reseller: true };
    for (const role of ROLES) {
      const expected = role === "owner" || role === "admin";
      for (const s of provisioning) {
        expect(scopesOfRole(role, staff).has(s), `${role} ${s}`).toBe(expected);
        expect(scopesOfRole(role, reseller).has(s), `reseller ${role} ${s}`).toBe(expected);
        // A customer without children: none, whatever its cost roles.
        expect(scopesOfRole(role, { platform: false, costRoles: [...ROLES] }).has(s)).toBe(false);
        expect(scopesOfRole(role, { platform: false, costRoles: [], reseller: false }).has(s)).toBe(false);
      }
    }
  });

  // Issue 28: a role's scopes had no implications, so no person (platform staff included) could read an invoice.
  it("every role reads invoices (calls:read implies invoices:read, docs/contract.md §2), platform staff too", () => {
    for (const context of [customer, { platform: true, costRoles: [] }, { platform: false, costRoles: [...ROLES] }])
      for (const role of ROLES) expect(scopesOfRole(role, context).has("invoices:read"), role).toBe(true);
  });

  it("a role's scopes carry the same implications as a key's (one function, effectiveScopes)", () => {
    for (const platform of [false, true])
      for (const role of ROLES) {
        const scopes = scopesOfRole(role, { platform, costRoles: [...ROLES] });
        expect([...effectiveScopes([...scopes])].sort(), role).toEqual([...scopes].sort());
      }
  });

  it("an unknown role has no scope at all", () => {
    expect(scopesOfRole("superuser", { platform: true, costRoles: ["superuser"] }).size).toBe(0);
  });

  // Issue 30: the Members page said "viewer (calls)" and "billing (balance, reports, calls)", by hand.
  it("describes each role by what its scopes let a person do", () => {
    const SEE = "see calls, balance, reports, rates and invoices";
    const PAY = "pay (top-ups by card, auto-recharge)";
    const ALERTS = "set low-balance alerts and webhooks";
    const KEYS = "create and revoke API keys";
    const MEMBERS = "invite members and change their roles";
    const AUDIT = "read the audit log";
    const LIMITS = "tighten the account's call and spend limits";
    expect(Object.fromEntries(ROLES.map((r) => [r, roleAbilities(r)]))).toEqual({
      viewer: [SEE],
      billing: [SEE, PAY, ALERTS],
      developer: [SEE, KEYS],
      admin: [SEE, ALERTS, KEYS, MEMBERS, AUDIT, LIMITS],
      owner: [SEE, PAY, ALERTS, KEYS, MEMBERS, AUDIT, LIMITS],
    });
    expect(describeRole("billing")).toBe(`${SEE}; ${PAY}; ${ALERTS}`);
  });

  it("a role's description names every scope of its row: each one is an ability or implied by one", () => {
    // The words that show a scope in a description; keys:read and members:read come with their :write.
    const said: Record<string, string> = {
      "calls:read": "see calls",
      "billing:read": "pay",
      "alerts:write": "alerts",
      "keys:write": "API keys",
      "members:write": "invite members",
      "audit:read": "audit log",
      "limits:write": "limits",
    };
    const impliedBy: Record<string, string> = { "keys:read": "keys:write", "members:read": "members:write" };
    for (const { role, scopes } of roleScopeTable()) {
      const description = describeRole(role);
      for (const scope of scopes) {
        const words = said[scope] ?? said[impliedBy[scope]];
        expect(words, `${role} ${scope}`).toBeDefined();
        expect(description, `${role} ${scope}`).toContain(words);
      }
      const scopesOf = scopesOfRole(role, customer) as ReadonlySet<string>;
      for (const [scope, words] of Object.entries(said))
        expect(description.includes(words), `${role} ${scope}`).toBe(scopesOf.has(scope));
    }
  });
});
