import http from "node:http";
import type { AddressInfo } from "node:net";
import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { addWebhookEndpoint, setBalanceThresholds } from "@/lib/alerts/webhooks";
import { verifyWebhook } from "@/lib/alerts/signing";
import { createApiKey } from "@/lib/auth/manage-keys";
import { createBillingGroup } from "@/lib/billing/groups";
import { queryRows } from "@/lib/db/client";
import { importSellRates } from "@/lib/rating/import-rates";
import { rateRowSchema } from "@/lib/rating/schemas";
import { AppServer, Store, bearer, http as request, postCdrs, sleep, type HttpResult } from "./harness";

/**
 * Prepaid authorizations and balance alerts on PostgreSQL with TWO app processes (`next start`) on one database:
 * 200 concurrent POST /v1/authorizations against a balance that covers 16 and a bit never reserve more than the
 * balance (the group's row lock serialises them across processes); replays answer the stored authorization; the
 * calls' CDRs settle them (each charged once, the rest released). The CDRs cross a low-balance threshold: the
 * event is delivered by the servers' own outbox workers to a receiver on 127.0.0.1 exactly once, signed.
 */

const AUTHORIZATIONS = 200;

describe("authorizations and alerts with two app processes on postgres", () => {
  let store: Store;
  const servers: AppServer[] = [];
  let key = "";
  let groupId = "";
  let secret = "";
  const received: { headers: Record<string, string>; body: string }[] = [];
  let receiver: http.Server;

  beforeAll(async () => {
    receiver = http.createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on("data", (c: Buffer) => chunks.push(c));
      req.on("end", () => {
        received.push({ headers: req.headers as Record<string, string>, body: Buffer.concat(chunks).toString("utf8") });
        res.writeHead(204).end();
      });
    });
    await new Promise<void>((r) => receiver.listen(0, "127.0.0.1", r));
    const hookUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;

    store = await Store.create("postgres", "authz");
    process.env.WEBHOOKS_ALLOW_PRIVATE = "1";
    await store.withDb(async (db) => {
      // 10.00 at 0.60/min per second: a 60 s grant reserves 0.61 (61 s), so 16 fit (9.76) and the 17th gets 23 s.
      const group = await createBillingGroup(db, {
        name: "Prepaid",
        currency: "USD",
        openingBalanceMicros: 10_000_000n,
      });
      groupId = group.id;
      await importSellRates(db, group.id, [rateRowSchema.parse({ prefix: "44", rate: "0.60", increment: "1/1" })]);
      key = (await createApiKey(db, { scopes: ["cdrs:write", "calls:read"], billingGroupId: group.id })).key;
      await setBalanceThresholds(db, group.id, [5_000_000n]);
      secret = (await addWebhookEndpoint(db, { url: hookUrl, billingGroupId: group.id })).secrets[0].secret;
    });
    const env = {
      RATE_LIMIT_RPS: "0",
      WEBHOOKS_ALLOW_PRIVATE: "1",
      WEBHOOK_POLL_MS: "100",
      CURSOR_SECRET: "c".repeat(64),
      SESSION_SECRET: "s".repeat(64),
    };
    servers.push(await AppServer.start(store, { env }), await AppServer.start(store, { env }));
  });

  afterAll(async () => {
    for (const s of servers) await s.stop().catch(() => undefined);
    await new Promise<void>((r) => receiver?.close(() => r()));
    await store?.dispose();
  });

  const authorize = (i: number, server: AppServer): Promise<HttpResult> =>
    request(server.baseUrl, "/v1/authorizations", {
      method: "POST",
      headers: { ...bearer(key), "content-type": "application/json" },
      body: JSON.stringify({ uuid: `call-${i}`, destination: "+447700900123", maxDurationSeconds: 60 }),
    });

  it("200 concurrent authorizations across both processes never reserve more than the balance; replays answer the same", async () => {
    const answers = await Promise.all(Array.from({ length: AUTHORIZATIONS }, (_, i) => authorize(i, servers[i % 2])));
    const granted = answers.filter((a) => a.status === 201);
    const refused = answers.filter((a) => a.status === 402);
    expect(granted.length + refused.length, answers.map((a) => a.status).join(",")).toBe(AUTHORIZATIONS);
    for (const r of refused) expect(r.json).toMatchObject({ status: 402, code: "insufficient_balance" });
    const grants = granted.map((a) => a.json as { maxDurationSeconds: number; reserved: number; status: string });
    expect(grants.filter((g) => g.maxDurationSeconds === 60)).toHaveLength(16);
    expect(grants.filter((g) => g.maxDurationSeconds !== 60).map((g) => g.maxDurationSeconds)).toEqual([23]);
    expect(grants.every((g) => g.status === "active")).toBe(true);
    const [sum] = await store.withDb((db) =>
      queryRows<{ reserved: string; n: number | bigint }>(
        db,
        sql`SELECT sum(reserved_micros)::text AS reserved, count(*) AS n FROM authorizations WHERE billing_group_id = ${groupId}`,
      ),
    );
    expect(BigInt(sum.reserved)).toBe(10_000_000n); // exactly the balance, never more
    expect(Number(sum.n)).toBe(17);

    // The switch retries: the same uuid answers the stored authorization, whichever process it reaches.
    const replays = await Promise.all(
      answers.map((a, i) =>
        a.status === 201 ? authorize(i, servers[(i + 1) % 2]).then((r) => [a, r] as const) : null,
      ),
    );
    for (const pair of replays) {
      if (!pair) continue;
      expect(pair[1].status).toBe(200);
      expect(pair[1].headers.get("idempotent-replayed")).toBe("true");
      expect(pair[1].json).toEqual(pair[0].json);
    }
  });

  it("the calls' CDRs settle the authorizations (charged once, the rest released) and the threshold crossing is delivered once, signed", async () => {
    const rows = await store.withDb((db) =>
      queryRows<{ uuid: string }>(
        db,
        sql`SELECT uuid FROM authorizations WHERE billing_group_id = ${groupId} ORDER BY uuid`,
      ),
    );
    const start = Date.now() - 120_000;
    // Each call lasted 30 s (0.30): 17 calls = 5.10, so the balance falls from 10.00 to 4.90, crossing 5.00.
    const cdrs = rows.map((r) => ({
      uuid: r.uuid,
      direction: "outbound",
      from: "15550001",
      to: "+447700900123",
      startTime: new Date(start).toISOString(),
      answerTime: new Date(start).toISOString(),
      endTime: new Date(start + 30_000).toISOString(),
    }));
    const posts = await Promise.all(cdrs.map((c, i) => postCdrs(servers[i % 2].baseUrl, key, c)));
    expect(posts.map((p) => p.status)).toEqual(cdrs.map(() => 201));
    const again = await Promise.all(cdrs.map((c, i) => postCdrs(servers[(i + 1) % 2].baseUrl, key, c)));
    expect(again.map((p) => p.status)).toEqual(cdrs.map(() => 200));

    await store.withDb(async (db) => {
      const [g] = await queryRows<{ balance: string }>(
        db,
        sql`SELECT balance_micros::text AS balance FROM billing_groups WHERE id = ${groupId}`,
      );
      expect(BigInt(g.balance)).toBe(4_900_000n);
      const [a] = await queryRows<{ open: number | bigint; settled: number | bigint }>(
        db,
        sql`SELECT count(*) FILTER (WHERE settled_at IS NULL) AS open, count(*) FILTER (WHERE settled_at IS NOT NULL AND call_id IS NOT NULL) AS settled FROM authorizations WHERE billing_group_id = ${groupId}`,
      );
      expect([Number(a.open), Number(a.settled)]).toEqual([0, 17]);
      const [d] = await queryRows<{ n: number | bigint }>(
        db,
        sql`SELECT count(*) AS n FROM ledger_entries WHERE billing_group_id = ${groupId} AND kind = 'debit'`,
      );
      expect(Number(d.n)).toBe(17);
    });
    // Released: 4.90 is available again for a new call.
    const next = await authorize(1000, servers[0]);
    expect(next.status).toBe(201);
    expect((next.json as { maxDurationSeconds: number }).maxDurationSeconds).toBe(60);

    // Both servers run an outbox worker; the one event reaches the receiver exactly once.
    const deliveries = () =>
      store.withDb((db) =>
        queryRows<{ attempts: number; delivered: boolean }>(
          db,
          sql`SELECT attempts, delivered_at IS NOT NULL AS delivered FROM webhook_deliveries`,
        ),
      );
    const deadline = Date.now() + 60_000;
    while (!(await deliveries()).every((d) => d.delivered) && Date.now() < deadline) await sleep(200);
    // One event, claimed once (a second claim would count a second attempt), received once.
    expect(await deliveries()).toEqual([{ attempts: 1, delivered: true }]);
    expect(received).toHaveLength(1);
    const [hook] = received;
    expect(verifyWebhook(secret, hook.headers, hook.body)).toBe(true);
    expect(JSON.parse(hook.body)).toMatchObject({
      type: "balance.low",
      data: { billingGroupId: groupId, balance: 4.9, threshold: 5 },
    });
  });
});
