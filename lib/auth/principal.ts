import type { Scope } from "./scopes";

/** Who is calling, whatever the credential (API key header or portal session cookie). */
export interface Principal {
  keyId: string;
  /** The key's name, else its display prefix: how the audit log names the actor (lib/audit/actor.ts). */
  keyLabel?: string | null;
  /** When the key expires (Unix ms), null or absent: never. A cached principal is refused from then on. */
  keyExpiresAt?: number | null;
  scopes: ReadonlySet<Scope>;
  /** null for a platform key: sees every group, cannot use /v1/balances or /v1/rates. */
  billingGroupId: string | null;
  /** Rate card version of the key's group, read with the key: rate caches check it for free. */
  rateCardVersion: number | null;
  via: "api_key" | "session";
  /** The portal session (portal_sessions.id) when via is "session". */
  sessionId?: string;
}

export function canReadCost(principal: Principal): boolean {
  return principal.scopes.has("calls:read_cost");
}
