import { describe, expect, it } from "vitest";
import { orgRoles } from "@/lib/people/auth";
import { ROLES, scopesOfRole } from "./roles";

// better-auth's organization plugin keeps its own copy of the roles (lib/people/auth.ts): which may invite, change
// roles and remove members in its endpoints. That copy must say what lib/auth/roles.ts says, or a person could do
// there what their scopes refuse here (or the reverse).

const customer = { platform: false, costRoles: [] };
const MANAGE_MEMBERS = { member: ["create", "update", "delete"], invitation: ["create", "cancel"] };

function statementsOf(role: string): Record<string, readonly string[]> {
  return (orgRoles as Record<string, { statements: Record<string, readonly string[]> }>)[role].statements;
}

describe("better-auth's organization roles", () => {
  it("are exactly the roles of lib/auth/roles.ts", () => {
    expect(Object.keys(orgRoles).sort()).toEqual([...ROLES].sort());
  });

  it("let a role manage members and invitations exactly when its scopes hold members:write", () => {
    for (const role of ROLES) {
      const statements = statementsOf(role);
      const manages = scopesOfRole(role, customer).has("members:write");
      for (const [resource, actions] of Object.entries(MANAGE_MEMBERS)) {
        expect([...(statements[resource] ?? [])].sort(), `${role} ${resource}`).toEqual(manages ? actions.sort() : []);
      }
    }
  });

  it("give no other permission but the owner's organization update (the owner holds every scope an admin does)", () => {
    for (const role of ROLES) {
      const others = Object.entries(statementsOf(role)).filter(([resource]) => !(resource in MANAGE_MEMBERS));
      expect(others, role).toEqual(role === "owner" ? [["organization", ["update"]]] : []);
    }
    const owner = scopesOfRole("owner", customer);
    for (const scope of scopesOfRole("admin", customer)) expect(owner.has(scope), scope).toBe(true);
  });
});
