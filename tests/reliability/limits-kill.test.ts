import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createApiKey } from "@/lib/auth/manage-keys";
import { createBillingGroup } from "@/lib/billing/groups";
import { queryRows } from "@/lib/db/client";
import { putLimits } from "@/lib/limits/manage-limits";
import { limitsBodySchema } from "@/lib/limits/schemas";
import { importSellRates } from "@/lib/rating/import-rates";
import { rateRowSchema } from "@/lib/rating/schemas";
import { AppServer, Store, bearer, http as request, sleep, type HttpResult } from "./harness";

/**
 * kill -9 of an app process holding concurrency slots (docs/contract.md §22), on PostgreSQL with two processes: a
 * burst of authorizations against a cap of 10 concurrent calls goes to one process, which is SIGKILLed mid-burst. Its
 * transactions in flight roll back (the database drops the dead connections and their row locks), so the other
 * process goes on at once and admits exactly what the committed grants leave; those grants hold their slots until
 * they expire (a 2 s grant plus a 2 s margin here), and then the cap admits exactly 10 again: nothing leaks.
 */

const CAP = 10;

describe("limits with an app process killed while holding slots, on postgres", () => {
  let store: Store;
  let victim: AppServer;
  let survivor: AppServer;
  let key = "";
  let groupId = "";

  beforeAll(async () => {
    store = await Store.create("postgres", "limits");
    await store.withDb(async (db) => {
      const group = await createBillingGroup(db, {
        name: "Slots",
        currency: "USD",
        openingBalanceMicros: 1_000_000_000n,
      });
      groupId = group.id;
      await importSellRates(db, group.id, [rateRowSchema.parse({ prefix: "44", rate: "0.60", increment: "1/1" })]);
      key = (await createApiKey(db, { scopes: ["cdrs:write", "calls:read"], billingGroupId: group.id })).key;
      await putLimits(
        db,
        { keyId: "op", scopes: new Set(), billingGroupId: null, rateCardVersion: null, via: "api_key" },
        limitsBodySchema.parse({ billingGroupId: group.id, maxConcurrentCalls: CAP }),
        { actor: { type: "cli", id: null, label: "test" }, address: null },
      );
    });
    const env = {
      RATE_LIMIT_RPS: "0",
      AUTHORIZATION_TTL_MARGIN_SECONDS: "2",
      CURSOR_SECRET: "c".repeat(64),
      SESSION_SECRET: "s".repeat(64),
    };
    [victim, survivor] = [await AppServer.start(store, { env }), await AppServer.start(store, { env })];
  });

  afterAll(async () => {
    for (const s of [victim, survivor]) await s?.stop().catch(() => undefined);
    await store?.dispose();
  });

  let seq = 0;
  const authorize = (server: AppServer): Promise<HttpResult | "lost"> =>
    request(server.baseUrl, "/v1/authorizations", {
      method: "POST",
      headers: { ...bearer(key), "content-type": "application/json" },
      body: JSON.stringify({ uuid: `slot-${++seq}`, destination: "447700900123", maxDurationSeconds: 2 }),
    }).catch(() => "lost" as const);
  const active = () =>
    store.withDb(async (db) => {
      const [row] = await queryRows<{ n: number | string }>(
        db,
        sql`SELECT count(*) AS n FROM authorizations
            WHERE billing_group_id = ${groupId} AND settled_at IS NULL AND expires_at > now()`,
      );
      return Number(row.n);
    });

  it("frees the killed process's slots at their expiry, and its transactions in flight hold none", async () => {
    // The burst: the victim is killed once its first grants are answered, with the rest still in flight.
    const burst = Array.from({ length: 60 }, () => authorize(victim));
    await Promise.race(burst.map((p) => p.then((r) => (r !== "lost" && r.status === 201 ? r : new Promise(() => {})))));
    await victim.kill9();
    const answers = await Promise.all(burst);
    expect(answers.filter((a) => a !== "lost" && a.status === 201).length).toBeGreaterThan(0);
    // The kill landed mid-burst: some requests never got an answer.
    expect(answers.filter((a) => a === "lost").length).toBeGreaterThan(0);

    // The survivor is not blocked by a dead process's locks, and the cap counts exactly the committed grants.
    const held = await active();
    expect(held).toBeLessThanOrEqual(CAP);
    const now = await Promise.all(Array.from({ length: 20 }, () => authorize(survivor)));
    const statuses = now.map((a) => (a === "lost" ? "lost" : a.status));
    expect(statuses.filter((s) => s === 201)).toHaveLength(CAP - held);
    expect(statuses.filter((s) => s === 429)).toHaveLength(20 - (CAP - held));

    // Every grant expires (4 s at most): the slots come back, all of them.
    const deadline = Date.now() + 30_000;
    while ((await active()) > 0 && Date.now() < deadline) await sleep(100);
    expect(await active()).toBe(0);
    const after = await Promise.all(Array.from({ length: 20 }, () => authorize(survivor)));
    expect(after.filter((a) => a !== "lost" && a.status === 201)).toHaveLength(CAP);
  });
});
