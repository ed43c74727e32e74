import { z } from "zod";

export const SCOPES = [
  "calls:read",
  "calls:read_cost",
  "cdrs:write",
  "keys:read",
  "keys:write",
  "audit:read",
  // A signed-in person's, from their role (lib/auth/roles.ts, docs/contract.md §14); keys may carry them too.
  "billing:read",
  "members:read",
  "members:write",
  "alerts:write",
  "alerts:read",
  // Provisioning, platform keys and platform staff only (README "Provisioning"): billing groups, the money on them,
  // rate decks and suppliers.
  "accounts:write",
  "payments:write",
  "rates:write",
  "invoices:read",
  // An account's limits (PUT /v1/limits): the operator's layer for a platform caller, the customer's for its own owners
  // and admins, who may only tighten it (docs/contract.md "Limits"). accounts:write implies it.
  "limits:write",
] as const;
export const scopeSchema = z.enum(SCOPES);
export type Scope = z.infer<typeof scopeSchema>;

/**
 * calls:read_cost implies calls:read, keys:write implies keys:read, alerts:write implies alerts:read, calls:read implies invoices:read, and accounts:write implies limits:write
 * (docs/contract.md §2): keys and portal sessions made before invoices existed read them; an `invoices:read` key reads
 * invoices only.
 */
export function effectiveScopes(granted: readonly string[]): Set<Scope> {
  const out = new Set<Scope>();
  for (const s of granted) {
    if ((SCOPES as readonly string[]).includes(s)) out.add(s as Scope);
  }
  if (out.has("calls:read_cost")) out.add("calls:read");
  if (out.has("keys:write")) out.add("keys:read");
  if (out.has("alerts:write")) out.add("alerts:read");
  if (out.has("calls:read")) out.add("invoices:read");
  if (out.has("accounts:write")) out.add("limits:write");
  return out;
}

export function parseScopeList(text: string): Scope[] {
  const parts = text
    .split(",")
    .map((s) => s.trim())
    .filter(Boolean);
  if (parts.length === 0) throw new RangeError("at least one scope is required");
  for (const p of parts) {
    if (!(SCOPES as readonly string[]).includes(p)) {
      throw new RangeError(`unknown scope "${p}" (known: ${SCOPES.join(", ")})`);
    }
  }
  return [...new Set(parts)] as Scope[];
}
