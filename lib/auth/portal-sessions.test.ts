import { sql } from "drizzle-orm";
import { beforeAll, expect, it } from "vitest";
import { createBillingGroup } from "@/lib/billing/groups";
import { queryRows } from "@/lib/db/client";
import { describeOnEngines } from "@/lib/testing/describe-on-engines";
import { waitUntil } from "@/lib/testing/wait-until";
import { findSessionPrincipal } from "./find-key";
import { createApiKey, revokeApiKey } from "./manage-keys";
import { createPortalSession, endPortalSession } from "./portal-sessions";
import { principalCacheFor, type PrincipalCache } from "./principal-cache";
import { SESSION_TTL_SECONDS, verifySessionToken } from "./session-token";

process.env.SESSION_SECRET ??= "portal-sessions-test-secret";

describeOnEngines("portal sessions", (handle) => {
  let cache: PrincipalCache;
  beforeAll(async () => {
    cache = principalCacheFor(handle().db);
    await waitUntil(() => cache.active, "the LISTEN to be active");
  });

  async function readKey() {
    const group = await createBillingGroup(handle().db, { name: "Sessions", currency: "USD" });
    return createApiKey(handle().db, { scopes: ["calls:read"], billingGroupId: group.id });
  }

  it("a session names a random id, not the key, and resolves to the key's principal", async () => {
    const key = await readKey();
    const a = await createPortalSession(handle().db, key.id);
    const b = await createPortalSession(handle().db, key.id);
    expect(a.id).not.toBe(b.id);
    expect(a.token).not.toContain(key.id);
    expect(verifySessionToken(a.token)?.sessionId).toBe(a.id);
    expect(verifySessionToken(a.token)?.expiresAt).toBe(Math.floor(a.expiresAt.getTime() / 1000));
    expect(a.expiresAt.getTime() - Date.now()).toBeGreaterThan((SESSION_TTL_SECONDS - 60) * 1000);
    const principal = await findSessionPrincipal(handle().db, a.id, cache);
    expect(principal).toMatchObject({ keyId: key.id, via: "session", sessionId: a.id });
    expect(await findSessionPrincipal(handle().db, "ses_unknown", cache)).toBeNull();
  });

  it("signing out ends that session at once, even when its principal was cached, and leaves the others", async () => {
    const key = await readKey();
    const ended = await createPortalSession(handle().db, key.id);
    const other = await createPortalSession(handle().db, key.id);
    const cached = await findSessionPrincipal(handle().db, ended.id, cache);
    expect(await findSessionPrincipal(handle().db, ended.id, cache)).toBe(cached); // served from the cache
    const before = cache.generation();
    expect(await endPortalSession(handle().db, ended.id)).toBe(true);
    expect(await endPortalSession(handle().db, ended.id)).toBe(false);
    await waitUntil(() => cache.generation() > before, "the invalidation notification");
    expect(await findSessionPrincipal(handle().db, ended.id, cache)).toBeNull();
    expect(await findSessionPrincipal(handle().db, other.id, cache)).not.toBeNull();
  });

  it("revoking the key ends all its sessions", async () => {
    const key = await readKey();
    const s1 = await createPortalSession(handle().db, key.id);
    const s2 = await createPortalSession(handle().db, key.id);
    expect(await revokeApiKey(handle().db, key.id)).toBe(true);
    const rows = await queryRows<{ id: string; ended: boolean }>(
      handle().db,
      sql`SELECT id, ended_at IS NOT NULL AS ended FROM portal_sessions WHERE key_id = ${key.id} ORDER BY id`,
    );
    expect(rows.map((r) => r.ended)).toEqual([true, true]);
    expect(await findSessionPrincipal(handle().db, s1.id)).toBeNull();
    expect(await findSessionPrincipal(handle().db, s2.id)).toBeNull();
  });

  it("an expired session is refused; sessions expired for over a day are purged at the next sign-in", async () => {
    const key = await readKey();
    const old = await createPortalSession(
      handle().db,
      key.id,
      new Date(Date.now() - (SESSION_TTL_SECONDS + 2 * 86_400) * 1000),
    );
    expect(await findSessionPrincipal(handle().db, old.id)).toBeNull();
    await createPortalSession(handle().db, key.id);
    const [left] = await queryRows<{ n: number | bigint }>(
      handle().db,
      sql`SELECT count(*)::int AS n FROM portal_sessions WHERE id = ${old.id}`,
    );
    expect(Number(left.n)).toBe(0);
  });
});
