import { describe, expect, it } from "vitest";
import { apiKeyListSchema, apiKeySchema, createdApiKeySchema } from "@/lib/keys/schemas";
import { waitUntil } from "@/lib/testing/wait-until";
import { api, apiServers, query, type ApiServer, type KeyName } from "./helpers";

// docs/contract.md §13: self-service keys. Keys of groups a and b are made here (never calls: a and b's listings
// stay as the fixtures say); every create and revoke is in the audit log.

interface Created {
  id: string;
  secret: string;
  prefix: string;
  billingGroupId: string | null;
  expiresAt: string | null;
}

async function create(server: ApiServer, key: KeyName, body: Record<string, unknown>) {
  return api<Created & { code?: string; detail?: string; errors?: { param: string }[] }>(server, "/v1/api-keys", {
    key,
    body,
  });
}

const bearer = (secret: string) => ({ authorization: `Bearer ${secret}` });

describe.each(apiServers())("self-service API keys on $engine", (server) => {
  it("need keys:read to list and keys:write to create or revoke", async () => {
    expect((await api(server, "/v1/api-keys", { key: "readA" })).status).toBe(403);
    expect((await api(server, "/v1/api-keys", { key: "keysReadA" })).status).toBe(200);
    const refused = await create(server, "keysReadA", { name: "x", scopes: ["keys:read"] });
    expect(refused.status).toBe(403);
    expect(refused.body.detail).toContain("keys:write");
    expect(
      (await api(server, `/v1/api-keys/${server.keyIds.readA}`, { key: "keysReadA", method: "DELETE" })).status,
    ).toBe(403);
    expect((await api(server, "/v1/api-keys")).status).toBe(401);
  });

  it("create: the secret is shown once and works; the list never holds it", async () => {
    const res = await create(server, "keysA", { name: "deploy bot", scopes: ["calls:read"] });
    expect(res.status).toBe(201);
    const created = createdApiKeySchema.parse(res.body);
    expect(created).toMatchObject({ billingGroupId: server.groups.a.id, scopes: ["calls:read"], revokedAt: null });
    expect(created.secret).toMatch(/^ck_[0-9A-Za-z]{38}$/);
    const calls = await api(server, "/v1/calls?pageSize=1", { authorization: bearer(created.secret).authorization });
    expect(calls.status).toBe(200);

    const list = await api(server, "/v1/api-keys", { key: "keysA" });
    apiKeyListSchema.strict().parse(list.body);
    expect(list.text).not.toContain(created.secret);
    expect(list.text).not.toMatch(/"(secret|hash)"/);
    const listed = (list.body as { apiKeys: { id: string }[] }).apiKeys.find((k) => k.id === created.id);
    expect(apiKeySchema.strict().parse(listed)).toMatchObject({
      id: created.id,
      prefix: created.prefix,
      name: "deploy bot",
    });
    // When it was last used: written in the background after the request above.
    await waitUntil(async () => {
      const again = await api<{ apiKeys: { id: string; lastUsedAt: string | null }[] }>(server, "/v1/api-keys", {
        key: "keysA",
      });
      return again.body.apiKeys.find((k) => k.id === created.id)?.lastUsedAt != null;
    }, "lastUsedAt of the new key");
  });

  it("refuse a scope the caller does not hold, naming it, and a body that is not a key request", async () => {
    const wider = await create(server, "keysA", { name: "x", scopes: ["calls:read", "calls:read_cost", "cdrs:write"] });
    expect(wider.status).toBe(403);
    expect(wider.body).toMatchObject({ code: "insufficient_scope" });
    expect(wider.body.detail).toContain("`calls:read_cost`, `cdrs:write`");
    expect(wider.body.errors!.map((e) => e.param)).toEqual(["scopes", "scopes"]);
    const otherGroup = await create(server, "keysA", {
      name: "x",
      scopes: ["calls:read"],
      billingGroupId: server.groups.b.id,
    });
    expect(otherGroup.status).toBe(403);
    for (const [body, param] of [
      [{ scopes: ["calls:read"] }, "name"],
      [{ name: "x", scopes: [] }, "scopes"],
      [{ name: "x", scopes: ["calls:write"] }, "scopes.0"],
      [{ name: "x", scopes: ["calls:read"], expiresAt: "2020-01-01T00:00:00Z" }, "expiresAt"],
      [{ name: "x", scopes: ["calls:read"], extra: 1 }, "(body)"],
    ] as const) {
      const res = await create(server, "keysA", body);
      expect(res.status, JSON.stringify(body)).toBe(422);
      expect(res.body.code).toBe("invalid_request_body");
      if (param !== "(body)") expect(res.body.errors!.map((e) => e.param)).toContain(param);
    }
    const notJson = await api(server, "/v1/api-keys", {
      key: "keysA",
      body: "name=x",
      headers: { "content-type": "text/plain" },
    });
    expect(notJson.status).toBe(422);
  });

  it("tenant isolation: a group never sees nor revokes another group's keys; a platform key makes keys in any group", async () => {
    const res = await create(server, "platformKeys", {
      name: "for b",
      scopes: ["calls:read"],
      billingGroupId: server.groups.b.id,
    });
    expect(res.status).toBe(201);
    const forB = res.body;
    expect(forB.billingGroupId).toBe(server.groups.b.id);
    const listA = await api<{ apiKeys: { id: string; billingGroupId: string }[] }>(server, "/v1/api-keys", {
      key: "keysA",
    });
    expect(listA.body.apiKeys.every((k) => k.billingGroupId === server.groups.a.id)).toBe(true);
    expect(listA.body.apiKeys.some((k) => k.id === server.keyIds.readA)).toBe(true);
    const listB = await api<{ apiKeys: { id: string }[] }>(server, "/v1/api-keys", { key: "keysB" });
    expect(listB.body.apiKeys.map((k) => k.id)).toContain(forB.id);
    const platformB = await api<{ apiKeys: { id: string; billingGroupId: string }[] }>(
      server,
      `/v1/api-keys${query({ account: server.groups.b.id })}`,
      { key: "platformKeys" },
    );
    expect(platformB.status).toBe(200);
    expect(platformB.body.apiKeys.map((k) => k.id)).toContain(forB.id);
    expect(platformB.body.apiKeys.every((k) => k.billingGroupId === server.groups.b.id)).toBe(true);

    const foreign = await api(server, `/v1/api-keys/${forB.id}`, { key: "keysA", method: "DELETE" });
    expect(foreign.status).toBe(404);
    expect(
      (await api(server, "/v1/calls?pageSize=1", { authorization: bearer(forB.secret).authorization })).status,
    ).toBe(200);
    // Group A's audit log holds none of this; B's holds the creation.
    const eventsA = await api<{ events: { target: { id: string } }[] }>(
      server,
      `/v1/audit-events${query({ action: "api_key.*", pageSize: 1000 })}`,
      { key: "keysA" },
    );
    expect(eventsA.body.events.some((e) => e.target.id === forB.id)).toBe(false);
    const eventsB = await api<{ events: { target: { id: string } }[] }>(
      server,
      `/v1/audit-events${query({ action: "api_key.created", pageSize: 1000 })}`,
      { key: "keysB" },
    );
    expect(eventsB.body.events.some((e) => e.target.id === forB.id)).toBe(true);
  });

  it("revoke: the key is refused at once, revoking again changes nothing, and both changes are audited", async () => {
    const created = (await create(server, "keysA", { name: "short-lived", scopes: ["calls:read"] })).body;
    expect((await api(server, "/v1/balances", { authorization: bearer(created.secret).authorization })).status).toBe(
      200,
    );
    const revoked = await api<{ revokedAt: string | null }>(server, `/v1/api-keys/${created.id}`, {
      key: "keysA",
      method: "DELETE",
    });
    expect(revoked.status).toBe(200);
    expect(revoked.body.revokedAt).not.toBeNull();
    const refused = await api(server, "/v1/balances", { authorization: bearer(created.secret).authorization });
    expect(refused.status).toBe(401);
    const again = await api<{ revokedAt: string }>(server, `/v1/api-keys/${created.id}`, {
      key: "keysA",
      method: "DELETE",
    });
    expect(again.body.revokedAt).toBe(revoked.body.revokedAt);
    expect((await api(server, "/v1/api-keys/key_nope", { key: "keysA", method: "DELETE" })).status).toBe(404);

    const events = await api<{
      events: {
        action: string;
        actor: { type: string; id: string };
        address: string | null;
        before: unknown;
        after: { revokedAt?: string };
      }[];
    }>(server, `/v1/audit-events${query({ action: "api_key.*", pageSize: 1000 })}`, { key: "keysA" });
    const mine = events.body.events.filter((e) => JSON.stringify(e).includes(created.id));
    expect(mine.map((e) => e.action)).toEqual(["api_key.revoked", "api_key.created"]);
    for (const e of mine) {
      expect(e.actor).toMatchObject({ type: "api_key", id: server.keyIds.keysA });
      expect(e.address).toBe("127.0.0.1");
      expect(JSON.stringify(e)).not.toContain(created.secret);
    }
    expect(mine[0].after.revokedAt).toBe(revoked.body.revokedAt);
  });

  it("an expired key is refused (401) from its expiry on", async () => {
    const expiresAt = new Date(Date.now() + 3_000).toISOString();
    const created = (await create(server, "keysA", { name: "expiring", scopes: ["calls:read"], expiresAt })).body;
    expect(created.expiresAt).toBe(expiresAt);
    const use = () => api(server, "/v1/balances", { authorization: bearer(created.secret).authorization });
    expect((await use()).status).toBe(200);
    // The key's principal may be cached by now: expiry must still apply, with no notification.
    await waitUntil(async () => Date.now() > Date.parse(expiresAt), "the key's expiry");
    const refused = await use();
    expect(refused.status).toBe(401);
    expect(refused.body).toMatchObject({ code: "unauthorized" });
  });
});
