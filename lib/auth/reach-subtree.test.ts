import { beforeAll, expect, it } from "vitest";
import { createBillingGroup } from "@/lib/billing/groups";
import type { Db } from "@/lib/db/client";
import { billingGroups } from "@/lib/db/schema";
import { newId } from "@/lib/ids/ids";
import { describeOnEngines } from "@/lib/testing/describe-on-engines";
import { waitUntil } from "@/lib/testing/wait-until";
import { findKeyBySecret, readSubtree } from "./find-key";
import { createApiKey } from "./manage-keys";
import { principalCacheFor, type PrincipalCache } from "./principal-cache";
import { ownGroup, reachOf } from "./reach";

// A reseller's reach is its subtree (docs/contract.md §21): read with the key, cached with it, and a new child account
// drops the cache so the next request reaches it too.

async function childOf(db: Db, parentId: string, name: string): Promise<string> {
  const [row] = await db
    .insert(billingGroups)
    .values({ id: newId("bg"), name, currency: "USD", parentId })
    .returning({ id: billingGroups.id });
  return row.id;
}

describeOnEngines("reach of a reseller's subtree", (handle, engine) => {
  let cache: PrincipalCache;
  let tree: { r1: string; r2: string; c: string; u: string };
  beforeAll(async () => {
    cache = principalCacheFor(handle().db);
    await waitUntil(() => cache.active, "the LISTEN to be active");
    const db = handle().db;
    const r1 = (await createBillingGroup(db, { name: "Reseller one", currency: "USD" })).id;
    const r2 = await childOf(db, r1, "Reseller two");
    const c = await childOf(db, r2, "Customer");
    const u = (await createBillingGroup(db, { name: "Unrelated", currency: "USD" })).id;
    tree = { r1, r2, c, u };
  });

  const keyOf = async (group: string) =>
    (await createApiKey(handle().db, { scopes: ["calls:read"], billingGroupId: group })).key;

  it("a key of each tier reaches its group and every descendant, its own group first; nothing else", async () => {
    const db = handle().db;
    const { r1, r2, c, u } = tree;
    const reachOfKey = async (group: string) => reachOf((await findKeyBySecret(db, await keyOf(group)))!);
    expect(await reachOfKey(r1)).toEqual({ kind: "groups", own: r1, groupIds: [r1, r2, c] });
    expect(await reachOfKey(r2)).toEqual({ kind: "groups", own: r2, groupIds: [r2, c] });
    expect(await reachOfKey(c)).toEqual({ kind: "groups", own: c, groupIds: [c] });
    expect(await reachOfKey(u)).toEqual({ kind: "groups", own: u, groupIds: [u] });
    expect(ownGroup(await reachOfKey(r1))).toBe(r1);
    expect(await readSubtree(db, r2)).toEqual([r2, c]);
    // A platform key has no group, so no subtree: it reaches everything.
    const platform = await createApiKey(db, { scopes: ["calls:read"], billingGroupId: null });
    expect(reachOf((await findKeyBySecret(db, platform.key))!)).toEqual({ kind: "platform" });
  });

  it("serves the subtree from the cache (no lookup) and drops it when a child account is added below", async () => {
    const db = handle().db;
    const secret = await keyOf(tree.r1);
    const first = await findKeyBySecret(db, secret, cache);
    expect(await findKeyBySecret(db, secret, cache)).toBe(first); // the same object: no round trip when warm
    const before = cache.generation();
    const grandchild = await childOf(db, tree.c, "Customer's customer");
    if (engine === "pglite") expect(cache.generation()).toBeGreaterThan(before); // delivered before the insert returned
    await waitUntil(() => cache.generation() > before, "the invalidation notification");
    const again = await findKeyBySecret(db, secret, cache);
    expect(again).not.toBe(first);
    expect(reachOf(again!)).toMatchObject({ groupIds: [tree.r1, tree.r2, tree.c, grandchild] });
  });

  it("a new root account joins no subtree and drops no cache", async () => {
    const db = handle().db;
    const secret = await keyOf(tree.u);
    const first = await findKeyBySecret(db, secret, cache);
    expect(await findKeyBySecret(db, secret, cache)).toBe(first);
    const before = cache.generation();
    await createBillingGroup(db, { name: "Another root", currency: "USD" });
    // PGlite delivers before the statement returns, so silence there is a fact; PostgreSQL's would be a wait for nothing.
    if (engine === "pglite") expect(cache.generation()).toBe(before);
    expect(reachOf((await findKeyBySecret(db, secret, cache))!)).toMatchObject({ groupIds: [tree.u] });
  });
});
