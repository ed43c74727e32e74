import { beforeAll, expect, it } from "vitest";
import { createBillingGroup } from "@/lib/billing/groups";
import { importSellRates } from "@/lib/rating/import-rates";
import { describeOnEngines } from "@/lib/testing/describe-on-engines";
import { waitUntil } from "@/lib/testing/wait-until";
import { findKeyBySecret, findSessionPrincipal } from "./find-key";
import { createApiKey, revokeApiKey } from "./manage-keys";
import { createPortalSession } from "./portal-sessions";
import { principalCacheFor, type PrincipalCache } from "./principal-cache";

describeOnEngines("principal cache", (handle, engine) => {
  let cache: PrincipalCache;
  beforeAll(async () => {
    cache = principalCacheFor(handle().db);
    await waitUntil(() => cache.active, "the LISTEN to be active");
  });

  /** A revocation elsewhere reaches this cache by notification: on PostgreSQL it arrives asynchronously. */
  async function afterNotification(before: number): Promise<void> {
    if (engine === "pglite") expect(cache.generation()).toBeGreaterThan(before); // delivered before the statement returned
    await waitUntil(() => cache.generation() > before, "the invalidation notification");
  }

  it("serves a live key from the cache and drops it when the key is revoked", async () => {
    const group = await createBillingGroup(handle().db, { name: "Cache", currency: "USD" });
    const key = await createApiKey(handle().db, { scopes: ["calls:read"], billingGroupId: group.id });
    const first = await findKeyBySecret(handle().db, key.key, cache);
    expect(first?.keyId).toBe(key.id);
    expect(await findKeyBySecret(handle().db, key.key, cache)).toBe(first); // the same object: no lookup
    const session = await createPortalSession(handle().db, key.id);
    const bySession = await findSessionPrincipal(handle().db, session.id, cache);
    expect(bySession?.via).toBe("session");
    expect(await findSessionPrincipal(handle().db, session.id, cache)).toBe(bySession);

    const before = cache.generation();
    expect(await revokeApiKey(handle().db, key.id)).toBe(true);
    await afterNotification(before);
    expect(await findKeyBySecret(handle().db, key.key, cache)).toBeNull();
    expect(await findSessionPrincipal(handle().db, session.id, cache)).toBeNull();
  });

  it("drops principals when a rate card changes, so the new version is read with the key", async () => {
    const group = await createBillingGroup(handle().db, { name: "Rates", currency: "USD" });
    const key = await createApiKey(handle().db, { scopes: ["calls:read"], billingGroupId: group.id });
    const v0 = (await findKeyBySecret(handle().db, key.key, cache))!.rateCardVersion;
    const before = cache.generation();
    await importSellRates(handle().db, group.id, [
      { prefix: "44", rate: "0.01", increment: { min: 60, interval: 60 } },
    ]);
    await afterNotification(before);
    expect((await findKeyBySecret(handle().db, key.key, cache))!.rateCardVersion).toBe(v0! + 1);
  });

  it("does not store a lookup that raced with an invalidation", async () => {
    const group = await createBillingGroup(handle().db, { name: "Race", currency: "USD" });
    const key = await createApiKey(handle().db, { scopes: ["calls:read"], billingGroupId: group.id });
    const principal = (await findKeyBySecret(handle().db, key.key))!;
    const generation = cache.generation();
    cache.invalidate();
    cache.set("h:race", principal, generation);
    expect(cache.get("h:race")).toBeUndefined();
    cache.set("h:race", principal, cache.generation());
    expect(cache.get("h:race")).toBe(principal);
  });
});
