import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { generateApiKeySecret, hashApiKey } from "@/lib/auth/api-key-format";
import { createApiKey, revokeApiKey } from "@/lib/auth/manage-keys";
import { apiKeys } from "@/lib/db/schema";
import type { DbHandle } from "@/lib/db/client";
import { openTestDb } from "@/lib/testing/engines";
import { authenticateCached, clearPrincipalCache, PRINCIPAL_TTL_MS } from "./principal-cache";

const bearer = (key: string) => new Request("http://127.0.0.1/v1/rates", { headers: { authorization: `Bearer ${key}` } });

describe("authenticateCached", () => {
  let handle: DbHandle;
  beforeAll(async () => {
    handle = await openTestDb("pglite");
  });
  afterAll(async () => {
    await handle?.close();
  });

  it("remembers a key for at most PRINCIPAL_TTL_MS: a revocation is seen once the window has passed", async () => {
    clearPrincipalCache();
    const { id, key } = await createApiKey(handle.db, { scopes: ["calls:read"] });
    const t0 = 1_000_000;
    expect((await authenticateCached(bearer(key), handle.db, t0)).keyId).toBe(id);
    await revokeApiKey(handle.db, id);
    // Inside the window the remembered principal answers (no database round trip)...
    expect((await authenticateCached(bearer(key), handle.db, t0 + PRINCIPAL_TTL_MS - 1)).keyId).toBe(id);
    // ...after it, the lookup runs again and the revoked key is refused.
    await expect(authenticateCached(bearer(key), handle.db, t0 + PRINCIPAL_TTL_MS)).rejects.toMatchObject({ code: "unauthorized" });
  });

  it("never remembers a refusal: a key created after a failed attempt works at once", async () => {
    clearPrincipalCache();
    const secret = generateApiKeySecret();
    await expect(authenticateCached(bearer(secret), handle.db, 5)).rejects.toMatchObject({ code: "unauthorized" });
    // The same secret becomes a key (as if created by another process) within the window.
    await handle.db.insert(apiKeys).values({ id: "key_late", displayPrefix: "ck_", hash: hashApiKey(secret), scopes: ["calls:read"] });
    await expect(authenticateCached(bearer(secret), handle.db, 6)).resolves.toMatchObject({ keyId: "key_late" });
  });

  it("does not cache session cookies", async () => {
    const request = new Request("http://127.0.0.1/v1/rates", { headers: { cookie: "cb_session=forged.token" } });
    await expect(authenticateCached(request, handle.db)).rejects.toMatchObject({ code: "unauthorized" });
  });
});
