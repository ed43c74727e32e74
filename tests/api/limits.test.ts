import { randomUUID } from "node:crypto";
import { describe, expect, it } from "vitest";
import type { AccountDetail } from "@/lib/billing/provisioning-schemas";
import type { Limits, RefusalPage } from "@/lib/limits/schemas";
import { api, apiServers } from "./helpers";

// Limits over HTTP (docs/contract.md "Limits"): GET/PUT /v1/limits, their enforcement by POST /v1/authorizations and
// GET /v1/authorizations/refusals. Each test makes its own account (key platformLimits), deck and bound key.

interface Problem {
  status: number;
  code: string;
  detail: string;
  errors?: { param: string; message: string }[];
}

describe.each(apiServers())("limits on $engine", (server) => {
  /** A fresh USD account with 100.00, 44 at 0.60/min (per second) and 4490 at 6.00/min, and a customer key of it. */
  async function account(): Promise<{ id: string; customer: string }> {
    const created = await api<AccountDetail>(server, "/v1/accounts", {
      key: "platformLimits",
      body: { name: `Limits ${randomUUID().slice(0, 8)}`, currency: "USD", openingBalance: "100" },
    });
    expect(created.status, created.text).toBe(201);
    const id = created.body.id;
    const deck = await api(server, `/v1/accounts/${id}/rate-decks?effectiveFrom=2020-01-01T00:00:00Z`, {
      key: "platformLimits",
      method: "POST",
      body: "prefix,rate,increment\n44,0.60,1/1\n4490,6.00,1/1\n",
      headers: { "content-type": "text/csv" },
    });
    expect(deck.status, deck.text).toBe(201);
    const key = await api<{ secret: string }>(server, "/v1/api-keys", {
      key: "platformLimits",
      body: { name: "customer", billingGroupId: id, scopes: ["limits:write", "calls:read", "cdrs:write"] },
    });
    expect(key.status, key.text).toBe(201);
    return { id, customer: key.body.secret };
  }
  const as = (secret: string) => ({ authorization: `Bearer ${secret}` });
  const put = (auth: { key?: "platformLimits"; authorization?: string }, body: unknown, idem?: string) =>
    api<Limits & Problem>(server, "/v1/limits", {
      ...auth,
      method: "PUT",
      body,
      headers: idem ? { "Idempotency-Key": idem } : {},
    });
  const authorize = (secret: string, destination = "447900") =>
    api<{ maxDurationSeconds: number } & Problem>(server, "/v1/authorizations", {
      authorization: `Bearer ${secret}`,
      body: { uuid: randomUUID(), destination, maxDurationSeconds: 60 },
    });

  it("the operator sets limits (idempotent, audited), the customer tightens them, and both hold at authorization", async () => {
    const { id, customer } = await account();
    const idem = randomUUID();
    const body = { billingGroupId: id, maxConcurrentCalls: 2, blockedPrefixes: ["4490"], dailySpend: "50.00" };
    const first = await put({ key: "platformLimits" }, body, idem);
    expect(first.status, first.text).toBe(200);
    expect(first.body.operator).toMatchObject({ maxConcurrentCalls: 2, blockedPrefixes: ["4490"], dailySpend: 50 });
    const replay = await put({ key: "platformLimits" }, body, idem);
    expect(replay.headers.get("idempotent-replayed")).toBe("true");

    // The customer may lower the operator's cap, never raise it.
    const raised = await put(as(customer), { maxConcurrentCalls: 3 });
    expect(raised.status).toBe(422);
    expect(raised.body.errors).toEqual([
      { param: "maxConcurrentCalls", message: "must not exceed the operator's limit (2)" },
    ]);
    const lowered = await put(as(customer), { maxConcurrentCalls: 1 });
    expect(lowered.status, lowered.text).toBe(200);
    expect(lowered.body.customer.maxConcurrentCalls).toBe(1);
    expect(lowered.body.operator.maxConcurrentCalls).toBe(2);
    // A customer's key cannot name another account.
    expect((await put(as(customer), { billingGroupId: server.groups.a.id })).status).toBe(404);

    const blocked = await authorize(customer, "+4490123");
    expect(blocked.status).toBe(403);
    expect(blocked.headers.get("content-type")).toContain("application/problem+json");
    expect(blocked.body).toMatchObject({ code: "destination_blocked", errors: [{ param: "blockedPrefixes" }] });
    expect((await authorize(customer)).status).toBe(201);
    const busy = await authorize(customer);
    expect(busy.status).toBe(429);
    expect(busy.body).toMatchObject({
      code: "concurrent_calls_limit",
      errors: [{ param: "maxConcurrentCalls", message: "limit 1, current 1" }],
    });

    const read = await api<Limits>(server, "/v1/limits", { authorization: `Bearer ${customer}` });
    expect(read.status).toBe(200);
    expect(read.body).toMatchObject({ billingGroupId: id, currency: "USD", usage: { concurrentCalls: 1 } });
    expect(read.body.usage.openReservations).toBe(0.61);
    const platformRead = await api<Limits & Problem>(server, `/v1/limits?account=${id}`, { key: "platformLimits" });
    expect(platformRead.body.customer.maxConcurrentCalls).toBe(1);
    expect((await api<Problem>(server, "/v1/limits", { key: "platformLimits" })).body.code).toBe("invalid_parameter");

    const refusals = await api<RefusalPage>(server, "/v1/authorizations/refusals?pageSize=1", {
      authorization: `Bearer ${customer}`,
    });
    expect(refusals.status).toBe(200);
    expect(refusals.body.refusals.map((r) => r.code)).toEqual(["concurrent_calls_limit"]);
    expect(refusals.body.meta.hasMore).toBe(true);
    const next = await api<RefusalPage>(server, refusals.body.nextPageUrl!, { authorization: `Bearer ${customer}` });
    expect(next.body.refusals.map((r) => [r.code, r.limitValue])).toEqual([["destination_blocked", "4490"]]);
    // Another account's caller sees none of them.
    const other = await api<RefusalPage>(server, `/v1/authorizations/refusals?account=${id}`, { key: "readA" });
    expect(other.body.refusals).toEqual([]);

    const audit = await api<{ events: { action: string; after: { layer: string } }[] }>(
      server,
      `/v1/audit-events?action=limits.updated&account=${id}`,
      { key: "platformAudit" },
    );
    expect(audit.body.events.map((e) => e.after.layer)).toEqual(["customer", "operator"]);
  });

  it("refuses writes without limits:write, and a daily cap shortens then refuses the grant (402)", async () => {
    const { id, customer } = await account();
    expect((await put({ key: "platformLimits" }, { billingGroupId: id, dailySpend: "1.00" })).status).toBe(200);
    expect((await api<Problem>(server, "/v1/limits", { key: "readA", method: "PUT", body: {} })).body.code).toBe(
      "insufficient_scope",
    );
    expect((await authorize(customer)).body.maxDurationSeconds).toBe(60); // 0.61 reserved
    expect((await authorize(customer)).body.maxDurationSeconds).toBe(38); // 0.39 left: 39 s billed at most
    const capped = await authorize(customer);
    expect(capped.status).toBe(402);
    expect(capped.body).toMatchObject({
      code: "daily_spend_limit",
      errors: [{ param: "dailySpend", message: "limit 1, current 1" }],
    });
  });

  it("a reseller writes its customer's provider layer, never the operator's; GET shows every layer to each", async () => {
    const reseller = await account();
    const child = await api<AccountDetail>(server, "/v1/accounts", {
      key: "platformLimits",
      body: { name: `Limited child ${randomUUID().slice(0, 8)}`, parentId: reseller.id, openingBalance: "100" },
    });
    expect(child.status, child.text).toBe(201);
    const deck = await api(server, `/v1/accounts/${child.body.id}/rate-decks?effectiveFrom=2020-01-01T00:00:00Z`, {
      key: "platformLimits",
      method: "POST",
      body: "prefix,rate,increment\n44,0.90,1/1\n4490,9.00,1/1\n",
      headers: { "content-type": "text/csv" },
    });
    expect(deck.status, deck.text).toBe(201);
    const keyOf = async (billingGroupId: string) =>
      (
        await api<{ secret: string }>(server, "/v1/api-keys", {
          key: "platformLimits",
          body: { name: "limits", billingGroupId, scopes: ["limits:write", "calls:read", "cdrs:write"] },
        })
      ).body.secret;
    const resellerKey = reseller.customer;
    const childKey = await keyOf(child.body.id);
    const id = child.body.id;

    const byOperator = await put({ key: "platformLimits" }, { billingGroupId: id, maxConcurrentCalls: 3 });
    expect(byOperator.status, byOperator.text).toBe(200);
    const byReseller = await put(as(resellerKey), {
      billingGroupId: id,
      maxConcurrentCalls: 1,
      blockedPrefixes: ["4490"],
    });
    expect(byReseller.status, byReseller.text).toBe(200);
    // The operator's limit is still there; the reseller's is its own layer.
    expect(byReseller.body.operator.maxConcurrentCalls).toBe(3);
    expect(byReseller.body.provider).toMatchObject({ maxConcurrentCalls: 1, blockedPrefixes: ["4490"] });
    const platformRead = await api<Limits>(server, `/v1/limits?account=${id}`, { key: "platformLimits" });
    expect([platformRead.body.operator.maxConcurrentCalls, platformRead.body.provider?.maxConcurrentCalls]).toEqual([
      3, 1,
    ]);
    const resellerRead = await api<Limits>(server, `/v1/limits?account=${id}`, as(resellerKey));
    expect([resellerRead.body.operator.maxConcurrentCalls, resellerRead.body.provider?.maxConcurrentCalls]).toEqual([
      3, 1,
    ]);
    const childRead = await api<Limits>(server, "/v1/limits", as(childKey));
    expect(childRead.body.provider?.blockedPrefixes).toEqual(["4490"]);
    // A root account has no provider layer.
    expect((await api<Limits>(server, "/v1/limits", as(resellerKey))).body.provider).toBeNull();

    // Both hold at authorization: the reseller's block and its cap of one call.
    expect((await authorize(childKey, "449012")).body.code).toBe("destination_blocked");
    expect((await authorize(childKey)).status).toBe(201);
    expect((await authorize(childKey)).body.code).toBe("concurrent_calls_limit");
    // Past the operator's number: 422 naming it; the customer may not lift the reseller's.
    const looser = await put(as(resellerKey), { billingGroupId: id, maxConcurrentCalls: 4 });
    expect([looser.status, looser.body.errors]).toEqual([
      422,
      [{ param: "maxConcurrentCalls", message: "must not exceed the operator's limit (3)" }],
    ]);
    const lifted = await put(as(childKey), { maxConcurrentCalls: 2 });
    expect([lifted.status, lifted.body.errors?.[0]?.message]).toEqual([
      422,
      "must not exceed the provider's limit (1)",
    ]);
  });
});
