import type { Scope } from "./scopes";

/** Who is calling, whatever the credential (API key header or portal session cookie). */
export interface Principal {
  /** The API key's id; for a signed-in person their user id (what the per-key rate limit and column choice count). */
  keyId: string;
  /**
   * The key's name, else its display prefix; a signed-in person's email: how the audit log names the actor
   * (lib/audit/actor.ts).
   */
  keyLabel?: string | null;
  /** When the key expires (Unix ms), null or absent: never. A cached principal is refused from then on. */
  keyExpiresAt?: number | null;
  scopes: ReadonlySet<Scope>;
  /**
   * null for a platform key: sees every group, cannot use /v1/balances or /v1/rates. Which accounts a caller may
   * touch is decided from it in one place: reachOf (lib/auth/reach.ts); compare it with null nowhere else.
   */
  billingGroupId: string | null;
  /**
   * A bound principal's group and every descendant account (reseller tiers, parent_id), its own group first: read
   * with the credential and cached with it; a new child account drops the cache (lib/auth/triggers.ts). Absent:
   * the own group only. Read it through reachOf, nowhere else.
   */
  reachGroupIds?: readonly string[];
  /** Rate card version of the key's group, read with the key: rate caches check it for free. */
  rateCardVersion: number | null;
  /** session: a portal session opened with a key (development only); user_session: a person signed in. */
  via: "api_key" | "session" | "user_session";
  /** The portal session: portal_sessions.id (via "session") or auth_sessions.id (via "user_session"). */
  sessionId?: string;
  /** A signed-in person (via "user_session"): who, in which organization, with which role. */
  userId?: string;
  organizationId?: string;
  role?: string;
  /**
   * The person's organization requires a second factor they have not set up: no scopes until they enroll (the
   * portal sends them to its Security page, /v1 answers 403 `two_factor_required`).
   */
  twoFactorRequired?: boolean;
}

export function canReadCost(principal: Pick<Principal, "scopes">): boolean {
  return principal.scopes.has("calls:read_cost");
}
