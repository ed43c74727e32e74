import { eq } from "drizzle-orm";
import { afterEach, expect, it, vi } from "vitest";
import { CLI_ACTOR } from "@/lib/audit/actor";
import { findKeyBySecret } from "@/lib/auth/find-key";
import { createApiKey } from "@/lib/auth/manage-keys";
import { principalCacheFor } from "@/lib/auth/principal-cache";
import type { Principal } from "@/lib/auth/principal";
import type { Scope } from "@/lib/auth/scopes";
import { createBillingGroup } from "@/lib/billing/groups";
import { auditEvents, apiKeyUses } from "@/lib/db/schema";
import { describeOnEngines } from "@/lib/testing/describe-on-engines";
import { waitUntil } from "@/lib/testing/wait-until";
import { createOwnApiKey } from "./create-key";
import { noteKeyUse } from "./last-used";
import { listApiKeys } from "./list-keys";
import { revokeKeyAudited, revokeOwnApiKey } from "./revoke-key";
import { createApiKeyRequestSchema } from "./schemas";

afterEach(() => vi.useRealTimers());

describeOnEngines("self-service API keys", (handle) => {
  /** A key of `group` with `scopes`, and the principal authentication gives it. */
  async function caller(group: string | null, scopes: Scope[], expiresAt?: Date): Promise<Principal> {
    const key = await createApiKey(handle().db, { scopes, billingGroupId: group, name: "caller", expiresAt });
    return (await findKeyBySecret(handle().db, key.key))!;
  }

  it("creates a working key in the caller's group, with its audit event, and shows the secret only then", async () => {
    const db = handle().db;
    const group = await createBillingGroup(db, { name: "Keys A", currency: "USD" });
    const admin = await caller(group.id, ["calls:read", "keys:write"]);
    const created = await createOwnApiKey(db, admin, { name: "deploy", scopes: ["calls:read"] }, "198.51.100.9");
    expect(created).toMatchObject({
      name: "deploy",
      scopes: ["calls:read"],
      billingGroupId: group.id,
      expiresAt: null,
    });
    expect(created.secret.startsWith(created.prefix.replace("…", ""))).toBe(true);
    expect((await findKeyBySecret(db, created.secret))?.keyId).toBe(created.id);

    const listed = (await listApiKeys(db, admin)).apiKeys.find((k) => k.id === created.id)!;
    expect(JSON.stringify(listed)).not.toContain(created.secret);
    expect(Object.keys(listed).sort()).toEqual(
      ["billingGroupId", "createdAt", "expiresAt", "id", "lastUsedAt", "name", "prefix", "revokedAt", "scopes"].sort(),
    );

    const [event] = await db.select().from(auditEvents).where(eq(auditEvents.targetId, created.id));
    expect(event).toMatchObject({
      action: "api_key.created",
      billingGroupId: group.id,
      actorType: "api_key",
      actorId: admin.keyId,
      actorLabel: "caller",
      address: "198.51.100.9",
      before: null,
    });
    expect(JSON.stringify(event.after)).not.toContain(created.secret);
  });

  it("never makes a key wider than its maker: scopes, group, expiry", async () => {
    const db = handle().db;
    const a = await createBillingGroup(db, { name: "Keys B", currency: "USD" });
    const b = await createBillingGroup(db, { name: "Keys C", currency: "USD" });
    const admin = await caller(a.id, ["calls:read", "keys:write"]);
    await expect(
      createOwnApiKey(db, admin, { name: "x", scopes: ["calls:read", "calls:read_cost", "cdrs:write"] }, null),
    ).rejects.toMatchObject({
      code: "insufficient_scope",
      detail: expect.stringContaining("`calls:read_cost`, `cdrs:write`"),
    });
    await expect(
      createOwnApiKey(db, admin, { name: "x", scopes: ["calls:read"], billingGroupId: b.id }, null),
    ).rejects.toMatchObject({ code: "insufficient_scope" });
    // keys:write implies keys:read, calls:read_cost implies calls:read.
    expect((await createOwnApiKey(db, admin, { name: "r", scopes: ["keys:read"] }, null)).scopes).toEqual([
      "keys:read",
    ]);
    const cost = await caller(a.id, ["calls:read_cost", "keys:write"]);
    expect((await createOwnApiKey(db, cost, { name: "r", scopes: ["calls:read"] }, null)).scopes).toEqual([
      "calls:read",
    ]);

    await expect(
      createOwnApiKey(db, admin, { name: "x", scopes: ["calls:read"], expiresAt: "2020-01-01T00:00:00Z" }, null),
    ).rejects.toMatchObject({ code: "invalid_request_body", errors: [{ param: "expiresAt" }] });
    // A body without a name never reaches createOwnApiKey: apiRoute parses the operation's schema.
    expect(createApiKeyRequestSchema.safeParse({ scopes: ["calls:read"] }).error?.issues[0].path).toEqual(["name"]);

    // An expiring key's keys expire no later than it does.
    const until = new Date(Date.now() + 86_400_000);
    const expiring = await caller(a.id, ["calls:read", "keys:write"], until);
    expect((await createOwnApiKey(db, expiring, { name: "e", scopes: ["calls:read"] }, null)).expiresAt).toBe(
      until.toISOString(),
    );
    await expect(
      createOwnApiKey(
        db,
        expiring,
        { name: "e", scopes: ["calls:read"], expiresAt: new Date(until.getTime() + 1000).toISOString() },
        null,
      ),
    ).rejects.toMatchObject({ code: "invalid_request_body" });

    // A platform caller may name a group, an existing one.
    const platform = await caller(null, ["calls:read", "keys:write"]);
    expect(
      (await createOwnApiKey(db, platform, { name: "p", scopes: ["calls:read"], billingGroupId: b.id }, null))
        .billingGroupId,
    ).toBe(b.id);
    await expect(
      createOwnApiKey(db, platform, { name: "p", scopes: ["calls:read"], billingGroupId: "bg_nope" }, null),
    ).rejects.toMatchObject({ code: "invalid_request_body", errors: [{ param: "billingGroupId" }] });
  });

  it("lists and revokes only the caller's group's keys; a revocation is audited once", async () => {
    const db = handle().db;
    const a = await createBillingGroup(db, { name: "Keys D", currency: "USD" });
    const b = await createBillingGroup(db, { name: "Keys E", currency: "USD" });
    const adminA = await caller(a.id, ["calls:read", "keys:write"]);
    const adminB = await caller(b.id, ["calls:read", "keys:write"]);
    const keyB = await createOwnApiKey(db, adminB, { name: "b", scopes: ["calls:read"] }, null);
    expect((await listApiKeys(db, adminA)).apiKeys.every((k) => k.billingGroupId === a.id)).toBe(true);
    await expect(revokeOwnApiKey(db, adminA, keyB.id, null)).rejects.toMatchObject({ code: "not_found" });
    expect(await findKeyBySecret(db, keyB.secret)).not.toBeNull();

    const cache = principalCacheFor(db);
    await waitUntil(() => cache.active, "the LISTEN to be active");
    expect(await findKeyBySecret(db, keyB.secret, cache)).toBe(await findKeyBySecret(db, keyB.secret, cache));
    const revoked = await revokeOwnApiKey(db, adminB, keyB.id, "198.51.100.10");
    expect(revoked.revokedAt).not.toBeNull();
    // Refused by this process at once, from its cache too (on PostgreSQL before its own NOTIFY is back).
    expect(await findKeyBySecret(db, keyB.secret, cache)).toBeNull();
    expect((await revokeOwnApiKey(db, adminB, keyB.id, null)).revokedAt).toBe(revoked.revokedAt);
    const events = await db.select().from(auditEvents).where(eq(auditEvents.targetId, keyB.id));
    expect(events.map((e) => e.action)).toEqual(["api_key.created", "api_key.revoked"]);
    expect(events[1]).toMatchObject({ address: "198.51.100.10", before: { revokedAt: null } });

    // The operator's CLI revokes any key, as actor `cli`.
    const keyA = await createOwnApiKey(db, adminA, { name: "a", scopes: ["calls:read"] }, null);
    expect((await revokeKeyAudited(db, keyA.id, CLI_ACTOR, null))?.changed).toBe(true);
    const mine = await db.select().from(auditEvents).where(eq(auditEvents.targetId, keyA.id));
    expect(mine.at(-1)).toMatchObject({ action: "api_key.revoked", actorType: "cli", actorId: null });
  });

  it("refuses an expired key, also when its principal is cached", async () => {
    const db = handle().db;
    const cache = principalCacheFor(db);
    await waitUntil(() => cache.active, "the LISTEN to be active");
    const expiresAt = new Date(Date.now() + 60_000);
    const key = await createApiKey(db, { scopes: ["calls:read"], billingGroupId: null, expiresAt });
    const principal = await findKeyBySecret(db, key.key, cache);
    expect(principal?.keyExpiresAt).toBe(expiresAt.getTime());
    expect(await findKeyBySecret(db, key.key, cache)).toBe(principal); // served from the cache
    vi.useFakeTimers({ toFake: ["Date"] });
    vi.setSystemTime(expiresAt.getTime() + 1);
    expect(await findKeyBySecret(db, key.key, cache)).toBeNull(); // the cached principal has expired
    vi.useRealTimers();
    // And the database refuses a key past its expiry.
    const past = await createApiKey(db, {
      scopes: ["calls:read"],
      billingGroupId: null,
      expiresAt: new Date(Date.now() - 1),
    });
    expect(await findKeyBySecret(db, past.key)).toBeNull();
  });

  it("records when a key was last used at most once a minute, never moving back", async () => {
    const db = handle().db;
    const key = await createApiKey(db, { scopes: ["calls:read"], billingGroupId: null });
    const lastUsed = async () =>
      (await db.select().from(apiKeyUses).where(eq(apiKeyUses.keyId, key.id)))[0]?.lastUsedAt.getTime();
    const t0 = Date.parse("2026-06-01T12:00:00.000Z");
    const used = { via: "api_key" as const, keyId: key.id };
    await noteKeyUse(db, used, t0);
    expect(await lastUsed()).toBe(t0);
    expect(noteKeyUse(db, used, t0 + 30_000)).toBeNull(); // within the minute: no write at all
    await noteKeyUse(db, used, t0 + 61_000);
    expect(await lastUsed()).toBe(t0 + 61_000);
    // A later use written by another process is not moved back by this one's earlier write.
    const later = new Date(t0 + 500_000);
    await db.update(apiKeyUses).set({ lastUsedAt: later }).where(eq(apiKeyUses.keyId, key.id));
    await noteKeyUse(db, used, t0 + 200_000);
    expect(await lastUsed()).toBe(later.getTime());
    const platform = (await findKeyBySecret(db, key.key))!;
    const listed = (await listApiKeys(db, platform)).apiKeys.find((k) => k.id === key.id);
    expect(listed?.lastUsedAt).toBe(later.toISOString());
  });

  it("notes no key use for a person's session (its keyId is the person's, no key's: the write could only fail)", async () => {
    const db = handle().db;
    const person = { via: "user_session" as const, keyId: "user_not_a_key" };
    expect(noteKeyUse(db, person)).toBeNull();
    expect(await db.select().from(apiKeyUses).where(eq(apiKeyUses.keyId, person.keyId))).toEqual([]);
  });
});
