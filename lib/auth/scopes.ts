import { z } from "zod";

export const SCOPES = [
  "calls:read",
  "calls:read_cost",
  "cdrs:write",
  // A signed-in person's, from their role (lib/auth/roles.ts, docs/contract.md §12); keys may carry them too.
  "billing:read",
  "members:read",
  "members:write",
  "keys:read",
  "keys:write",
  "alerts:write",
  "audit:read",
] as const;
export const scopeSchema = z.enum(SCOPES);
export type Scope = z.infer<typeof scopeSchema>;

/** calls:read_cost implies calls:read (docs/contract.md §2), keys:write implies keys:read. */
export function effectiveScopes(granted: readonly string[]): Set<Scope> {
  const out = new Set<Scope>();
  for (const s of granted) {
    if ((SCOPES as readonly string[]).includes(s)) out.add(s as Scope);
  }
  if (out.has("calls:read_cost")) out.add("calls:read");
  if (out.has("keys:write")) out.add("keys:read");
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
