import { timingSafeEqual } from "node:crypto";
import { sql, type SQL } from "drizzle-orm";
import { queryRows, type Executor } from "@/lib/db/client";
import { hashApiKey, isWellFormedApiKey } from "./api-key-format";
import type { Principal } from "./principal";
import type { PrincipalCache } from "./principal-cache";
import { scopesOfRole } from "./roles";
import { effectiveScopes } from "./scopes";

interface KeyRow {
  id: string;
  hash: string;
  scopes: string[];
  billing_group_id: string | null;
  name: string | null;
  display_prefix: string;
  expires_at: Date | string | null;
  rate_card_version: bigint | number | null;
  reach: string[] | null;
}

/**
 * The group's subtree (itself first, then its descendants by parent_id) as an array, for the principal's reach
 * (lib/auth/reach.ts): read in the credential's own statement, so it costs no round trip, and cached with it.
 */
const subtreeOf = (group: SQL) => sql`(WITH RECURSIVE tree(id, depth) AS (
    SELECT g0.id, 0 FROM billing_groups g0 WHERE g0.id = ${group}
    UNION ALL SELECT child.id, tree.depth + 1 FROM billing_groups child JOIN tree ON child.parent_id = tree.id)
  SELECT array_agg(tree.id ORDER BY tree.depth, tree.id) FROM tree)`;

/** The subtree of one group (its own id first), as a principal built outside authentication needs it (exports). */
export async function readSubtree(db: Executor, groupId: string): Promise<string[]> {
  const [row] = await queryRows<{ reach: string[] | null }>(db, sql`SELECT ${subtreeOf(sql`${groupId}`)} AS reach`);
  return row?.reach ?? [groupId];
}

function toPrincipal(row: KeyRow, via: Principal["via"], sessionId?: string): Principal {
  // Frozen: a cached principal is shared by every request of its key.
  return Object.freeze({
    keyId: row.id,
    keyLabel: row.name ?? row.display_prefix,
    keyExpiresAt: row.expires_at === null ? null : new Date(row.expires_at).getTime(),
    scopes: effectiveScopes(row.scopes),
    billingGroupId: row.billing_group_id,
    ...(row.reach ? { reachGroupIds: Object.freeze(row.reach) } : {}),
    rateCardVersion: row.rate_card_version === null ? null : Number(row.rate_card_version),
    via,
    ...(sessionId ? { sessionId } : {}),
  });
}

const SELECT_KEY = sql`SELECT k.id, k.hash, k.scopes, k.billing_group_id, k.name, k.display_prefix, k.expires_at,
  g.rate_card_version, ${subtreeOf(sql`k.billing_group_id`)} AS reach FROM api_keys k LEFT JOIN billing_groups g ON g.id = k.billing_group_id`;
/** A key counts while it is neither revoked nor past its expiry (docs/contract.md §13). */
const LIVE_KEY = sql`k.revoked_at IS NULL AND (k.expires_at IS NULL OR k.expires_at > now())`;

/**
 * A cached principal of a key that has expired since it was cached is refused without a lookup: expiry is a
 * moment, not a change, so no notification drops it (revocation does, principal-cache.ts).
 */
function unexpired(principal: Principal | undefined, now = Date.now()): Principal | null | undefined {
  if (!principal) return undefined;
  return principal.keyExpiresAt != null && principal.keyExpiresAt <= now ? null : principal;
}

/**
 * The live (neither revoked nor expired) key for a secret, or null. Malformed secrets never reach the database.
 * With a cache, live keys are served from it (unknown keys are never cached).
 */
export async function findKeyBySecret(db: Executor, secret: string, cache?: PrincipalCache): Promise<Principal | null> {
  if (!isWellFormedApiKey(secret)) return null;
  const hash = hashApiKey(secret);
  const cacheKey = `h:${hash}`;
  const cached = unexpired(cache?.get(cacheKey));
  if (cached !== undefined) return cached;
  const generation = cache?.generation() ?? 0;
  const [row] = await queryRows<KeyRow>(db, sql`${SELECT_KEY} WHERE k.hash = ${hash} AND ${LIVE_KEY}`);
  if (!row) return null;
  // The index lookup already matched; compare again in constant time as defence in depth.
  if (!timingSafeEqual(Buffer.from(row.hash), Buffer.from(hash))) return null;
  const principal = toPrincipal(row, "api_key");
  cache?.set(cacheKey, principal, generation);
  return principal;
}

/**
 * The live key behind a live portal session: the session neither ended (sign-out, key revocation)
 * nor expired, and its key neither revoked nor expired. Ending a session or revoking a key NOTIFYs callbook_auth,
 * which drops the cache (migrations 0002 and 0003).
 */
export async function findSessionPrincipal(
  db: Executor,
  sessionId: string,
  cache?: PrincipalCache,
): Promise<Principal | null> {
  const cacheKey = `s:${sessionId}`;
  const cached = unexpired(cache?.get(cacheKey));
  if (cached !== undefined) return cached;
  const generation = cache?.generation() ?? 0;
  if (isPersonSessionId(sessionId)) {
    const principal = await findPersonPrincipal(db, sessionId);
    if (principal) cache?.set(cacheKey, principal, generation);
    return principal;
  }
  const [row] = await queryRows<KeyRow>(
    db,
    sql`${SELECT_KEY} JOIN portal_sessions s ON s.key_id = k.id
      WHERE s.id = ${sessionId} AND s.ended_at IS NULL AND s.expires_at > now() AND ${LIVE_KEY}`,
  );
  if (!row) return null;
  const principal = toPrincipal(row, "session", sessionId);
  cache?.set(cacheKey, principal, generation);
  return principal;
}

/** A person's session (auth_sessions.id, lib/people) as opposed to a key's portal session (`ses_`). */
export const PERSON_SESSION_PREFIX = "uss_";

export function isPersonSessionId(sessionId: string): boolean {
  return sessionId.startsWith(PERSON_SESSION_PREFIX);
}

interface PersonRow {
  user_id: string;
  email: string;
  organization_id: string;
  role: string;
  platform: boolean;
  billing_group_id: string | null;
  cost_roles: string[] | null;
  rate_card_version: bigint | number | null;
  two_factor_required: boolean;
  reach: string[] | null;
}

/**
 * A signed-in person's principal: their live session, their membership of the session's organization and its role,
 * read on every request unless cached. Removing the member, changing the role, ending the session or changing the
 * group's cost roles NOTIFYs callbook_auth (migration 0014), so it takes effect at the next request in every process.
 * A member whose organization requires a second factor they have not set up has no scopes at all, only
 * `twoFactorRequired` (docs/contract.md §15): they may enroll, nothing else (turning the requirement on NOTIFYs too,
 * migration 0015).
 */
async function findPersonPrincipal(db: Executor, sessionId: string): Promise<Principal | null> {
  const [row] = await queryRows<PersonRow>(
    db,
    sql`SELECT s.user_id, u.email, m.organization_id, m.role, o.platform, o.billing_group_id, g.cost_roles, g.rate_card_version,
        (o.require_two_factor AND NOT u.two_factor_enabled) AS two_factor_required,
        CASE WHEN o.platform THEN NULL ELSE ${subtreeOf(sql`o.billing_group_id`)} END AS reach
      FROM auth_sessions s
      JOIN users u ON u.id = s.user_id
      JOIN members m ON m.user_id = s.user_id AND m.organization_id = s.active_organization_id
      JOIN organizations o ON o.id = m.organization_id
      LEFT JOIN billing_groups g ON g.id = o.billing_group_id
      WHERE s.id = ${sessionId} AND s.expires_at > now()`,
  );
  if (!row) return null;
  return Object.freeze({
    keyId: row.user_id,
    keyLabel: row.email,
    scopes: row.two_factor_required
      ? new Set<never>()
      : scopesOfRole(row.role, {
          platform: row.platform,
          costRoles: row.cost_roles ?? [],
          // Its subtree holds more than itself: it resells, and provisions those accounts (§21).
          reseller: !row.platform && (row.reach?.length ?? 0) > 1,
        }),
    billingGroupId: row.platform ? null : row.billing_group_id,
    ...(!row.platform && row.reach ? { reachGroupIds: Object.freeze(row.reach) } : {}),
    rateCardVersion: row.rate_card_version === null ? null : Number(row.rate_card_version),
    via: "user_session" as const,
    sessionId,
    userId: row.user_id,
    organizationId: row.organization_id,
    role: row.role,
    ...(row.two_factor_required ? { twoFactorRequired: true } : {}),
  });
}
