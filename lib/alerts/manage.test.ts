import http from "node:http";
import type { AddressInfo } from "node:net";
import { sql } from "drizzle-orm";
import { afterAll, beforeAll, expect, it } from "vitest";
import { CLI_ACTOR } from "@/lib/audit/actor";
import type { Principal } from "@/lib/auth/principal";
import { effectiveScopes } from "@/lib/auth/scopes";
import { createBillingGroup } from "@/lib/billing/groups";
import { queryRows } from "@/lib/db/client";
import { ApiError } from "@/lib/errors/api-error";
import { describeOnEngines } from "@/lib/testing/describe-on-engines";
import { deliverDueWebhooks, type DeliveryOptions } from "./delivery";
import { listDeliveries, resendDelivery, sendTestEvent } from "./delivery-log";
import { createEndpoint, deleteEndpoint, getEndpoint, listEndpoints, updateEndpoint } from "./manage-endpoints";
import { readThresholds, replaceThresholds } from "./manage-thresholds";
import { verifyWebhook } from "./signing";

const OPTIONS: DeliveryOptions = {
  retryBaseMs: 1,
  retryCapMs: 1,
  maxAttempts: 2,
  leaseMs: 10_000,
  timeoutMs: 2_000,
  concurrency: 4,
};
const BY = { actor: CLI_ACTOR, address: null };

function principal(billingGroupId: string | null): Principal {
  return {
    keyId: `key_${billingGroupId ?? "platform"}`,
    scopes: effectiveScopes(["alerts:write"]),
    billingGroupId,
    rateCardVersion: null,
    via: "api_key",
  };
}

/** A receiver on 127.0.0.1 answering the statuses given in turn (then 200 "ok"), keeping what it got. */
async function receiver(statuses: number[] = []) {
  const received: { headers: Record<string, string>; body: string }[] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      received.push({ headers: req.headers as Record<string, string>, body: Buffer.concat(chunks).toString("utf8") });
      const status = statuses.shift() ?? 200;
      res.writeHead(status, { "content-type": "text/plain" }).end(status === 200 ? "ok" : "x".repeat(3000));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`,
    received,
    close: () => new Promise<void>((r) => server.close(() => r())),
  };
}

const notFound = (promise: Promise<unknown>) =>
  expect(promise).rejects.toSatisfy((e) => e instanceof ApiError && e.code === "not_found");

describeOnEngines("alerts over /v1 (domain)", (handle) => {
  const saved = process.env.WEBHOOKS_ALLOW_PRIVATE;
  let recv: Awaited<ReturnType<typeof receiver>>;
  beforeAll(async () => {
    recv = await receiver([500]);
  });
  afterAll(async () => {
    await recv.close();
    if (saved === undefined) delete process.env.WEBHOOKS_ALLOW_PRIVATE;
    else process.env.WEBHOOKS_ALLOW_PRIVATE = saved;
  });

  it("keeps each group's endpoints and thresholds to itself (404 for another's and the platform's), refuses private URLs naming url, and audits every change", async () => {
    const db = handle().db;
    const a = await createBillingGroup(db, { name: "A", currency: "EUR", openingBalanceMicros: 20_000_000n });
    const b = await createBillingGroup(db, { name: "B", currency: "USD" });
    delete process.env.WEBHOOKS_ALLOW_PRIVATE;
    await expect(
      createEndpoint(db, principal(a.id), { url: "http://127.0.0.1:9/x", eventTypes: ["*"] }, BY),
    ).rejects.toSatisfy((e) => e instanceof ApiError && e.status === 422 && e.errors?.[0]?.param === "url");
    process.env.WEBHOOKS_ALLOW_PRIVATE = "1";
    const mine = await createEndpoint(db, principal(a.id), { url: recv.url, eventTypes: ["balance.low"] }, BY);
    expect(mine).toMatchObject({ billingGroupId: a.id, eventTypes: ["balance.low"], disabled: false });
    expect(mine.secret).toMatch(/^whsec_/);
    // A group's caller naming another group reaches nothing.
    await notFound(createEndpoint(db, principal(a.id), { url: recv.url, eventTypes: ["*"], billingGroupId: b.id }, BY));
    const platform = await createEndpoint(db, principal(null), { url: recv.url, eventTypes: ["*"] }, BY);
    const theirs = await createEndpoint(
      db,
      principal(null),
      { url: recv.url, eventTypes: ["*"], billingGroupId: b.id },
      BY,
    );
    expect((await listEndpoints(db, principal(a.id), undefined)).endpoints.map((e) => e.id)).toEqual([mine.id]);
    expect((await listEndpoints(db, principal(null), b.id)).endpoints.map((e) => e.id)).toEqual([theirs.id]);
    for (const id of [platform.id, theirs.id]) {
      await notFound(getEndpoint(db, principal(a.id), id));
      await notFound(updateEndpoint(db, principal(a.id), id, { disabled: true }, BY));
      await notFound(deleteEndpoint(db, principal(a.id), id, BY));
      await notFound(sendTestEvent(db, principal(a.id), id, BY));
      await notFound(listDeliveries(db, principal(a.id), id, { pageSize: 10 }));
    }
    expect((await getEndpoint(db, principal(null), mine.id)).id).toBe(mine.id);

    const set = await replaceThresholds(db, principal(a.id), { thresholds: [5_000_000n, 30_000_000n] }, BY);
    expect(set).toEqual({
      billingGroupId: a.id,
      currency: "EUR",
      thresholds: [
        { amount: 30, crossed: true },
        { amount: 5, crossed: false },
      ],
    });
    await notFound(readThresholds(db, principal(a.id), b.id));
    expect((await readThresholds(db, principal(null), a.id)).thresholds).toHaveLength(2);
    await expect(replaceThresholds(db, principal(null), { thresholds: [] }, BY)).rejects.toSatisfy(
      (e) => e instanceof ApiError && e.errors?.[0]?.param === "billingGroupId",
    );
    await updateEndpoint(db, principal(a.id), mine.id, { disabled: true, eventTypes: ["*"] }, BY);
    await deleteEndpoint(db, principal(null), platform.id, BY);
    await deleteEndpoint(db, principal(null), theirs.id, BY);
    const actions = await queryRows<{ action: string; billing_group_id: string | null }>(
      db,
      sql`SELECT action, billing_group_id FROM audit_events WHERE action LIKE 'webhook%' OR action LIKE 'alert%' ORDER BY id`,
    );
    expect(
      actions.map((e) => `${e.action} ${e.billing_group_id === a.id ? "a" : e.billing_group_id === b.id ? "b" : "-"}`),
    ).toEqual([
      "webhook_endpoint.created a",
      "webhook_endpoint.created -",
      "webhook_endpoint.created b",
      "alert_threshold.changed a",
      "webhook_endpoint.updated a",
      "webhook_endpoint.deleted -",
      "webhook_endpoint.deleted b",
    ]);
    const [snapshot] = await queryRows<{ after: string }>(
      db,
      sql`SELECT after::text AS after FROM audit_events WHERE action = 'webhook_endpoint.created' ORDER BY id LIMIT 1`,
    );
    expect(snapshot.after).not.toMatch(/whsec_/);
  });

  it("sends a test event through the outbox (signed), logs each attempt with status, duration and excerpt, retries, and resends", async () => {
    const db = handle().db;
    process.env.WEBHOOKS_ALLOW_PRIVATE = "1";
    const group = await createBillingGroup(db, { name: "T", currency: "USD" });
    const endpoint = await createEndpoint(db, principal(group.id), { url: recv.url, eventTypes: ["balance.low"] }, BY);
    const before = recv.received.length;
    const queued = await sendTestEvent(db, principal(group.id), endpoint.id, BY);
    expect(queued).toMatchObject({ type: "webhook.test", status: "pending", attempts: [] });
    // First attempt: the receiver answers 500 (kept, cut to 1 KiB); the retry gets 200.
    await deliverDueWebhooks(db, OPTIONS);
    // The retry is due now (not after waiting out its backoff).
    await db.execute(sql`UPDATE webhook_deliveries SET next_attempt_at = now() WHERE event_id = ${queued.eventId}`);
    await deliverDueWebhooks(db, OPTIONS);
    const got = recv.received.slice(before);
    expect(got).toHaveLength(2);
    expect(got[0].headers["webhook-id"]).toBe(queued.eventId);
    expect(verifyWebhook(endpoint.secret, got[1].headers, got[1].body)).toBe(true);
    expect(JSON.parse(got[1].body)).toMatchObject({ type: "webhook.test", data: { endpointId: endpoint.id } });
    const page = await listDeliveries(db, principal(group.id), endpoint.id, { pageSize: 10 });
    expect(page.deliveries).toHaveLength(1);
    const [delivery] = page.deliveries;
    expect(delivery).toMatchObject({ eventId: queued.eventId, status: "delivered", nextAttemptAt: null });
    expect(delivery.attempts.map((a) => a.status)).toEqual([200, 500]);
    expect(delivery.attempts[0].responseExcerpt).toBe("ok");
    expect(delivery.attempts[1].responseExcerpt).toHaveLength(1024);
    for (const a of delivery.attempts) expect(Number.isInteger(a.durationMs) && a.durationMs >= 0).toBe(true);

    const resent = await resendDelivery(db, principal(group.id), endpoint.id, queued.eventId, BY);
    expect(resent.status).toBe("pending");
    await deliverDueWebhooks(db, OPTIONS);
    expect(recv.received.length - before).toBe(3);
    const after = await listDeliveries(db, principal(group.id), endpoint.id, { pageSize: 10 });
    expect(after.deliveries[0].attempts.map((a) => a.status)).toEqual([200, 200, 500]);
    await notFound(resendDelivery(db, principal(group.id), endpoint.id, "msg_missing", BY));
    // While an attempt is in flight (a live lease), a resend is refused.
    const inFlight = await sendTestEvent(db, principal(group.id), endpoint.id, BY);
    await db.execute(
      sql`UPDATE webhook_deliveries SET leased_until = now() + interval '1 minute' WHERE event_id = ${inFlight.eventId}`,
    );
    await expect(resendDelivery(db, principal(group.id), endpoint.id, inFlight.eventId, BY)).rejects.toSatisfy(
      (e) => e instanceof ApiError && e.code === "conflict",
    );
    await db.execute(sql`DELETE FROM webhook_deliveries WHERE event_id = ${inFlight.eventId}`);

    // Disabled: nothing is sent, the test waits; enabled again, it goes.
    await updateEndpoint(db, principal(group.id), endpoint.id, { disabled: true }, BY);
    const waiting = await sendTestEvent(db, principal(group.id), endpoint.id, BY);
    expect((await deliverDueWebhooks(db, OPTIONS)).claimed).toBe(0);
    await updateEndpoint(db, principal(group.id), endpoint.id, { disabled: false }, BY);
    await deliverDueWebhooks(db, OPTIONS);
    expect(recv.received.at(-1)?.headers["webhook-id"]).toBe(waiting.eventId);

    // Paged newest first with a cursor bound to the endpoint.
    const first = await listDeliveries(db, principal(group.id), endpoint.id, { pageSize: 1 });
    expect(first.deliveries[0].eventId).toBe(waiting.eventId);
    expect(first.hasMore).toBe(true);
    const second = await listDeliveries(db, principal(group.id), endpoint.id, {
      pageSize: 1,
      cursor: first.nextCursor,
    });
    expect(second.deliveries[0].eventId).toBe(queued.eventId);
    expect(second.hasMore).toBe(false);
  });

  it("delivers a group's events only to enabled endpoints subscribed to their type", async () => {
    const db = handle().db;
    process.env.WEBHOOKS_ALLOW_PRIVATE = "1";
    const group = await createBillingGroup(db, { name: "E", currency: "USD", openingBalanceMicros: 100_000_000n });
    const low = await createEndpoint(db, principal(group.id), { url: recv.url, eventTypes: ["balance.low"] }, BY);
    const all = await createEndpoint(db, principal(group.id), { url: recv.url, eventTypes: ["*"] }, BY);
    const off = await createEndpoint(db, principal(group.id), { url: recv.url, eventTypes: ["*"] }, BY);
    const other = await createEndpoint(db, principal(group.id), { url: recv.url, eventTypes: ["group.disabled"] }, BY);
    await updateEndpoint(db, principal(group.id), off.id, { disabled: true }, BY);
    await replaceThresholds(db, principal(group.id), { thresholds: [50_000_000n] }, BY);
    await db.execute(sql`UPDATE billing_groups SET balance_micros = 10000000 WHERE id = ${group.id}`);
    const rows = await queryRows<{ endpoint_id: string; type: string }>(
      db,
      sql`SELECT d.endpoint_id, e.type FROM webhook_deliveries d JOIN webhook_events e ON e.id = d.event_id
          WHERE e.billing_group_id = ${group.id} ORDER BY d.endpoint_id`,
    );
    expect(rows.map((r) => r.endpoint_id).sort()).toEqual([low.id, all.id].sort());
    expect(rows.every((r) => r.type === "balance.low")).toBe(true);
    void other;
  });
});
