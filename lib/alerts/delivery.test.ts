import http from "node:http";
import type { AddressInfo } from "node:net";
import { sql } from "drizzle-orm";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { createBillingGroup } from "@/lib/billing/groups";
import { queryRows } from "@/lib/db/client";
import { describeOnEngines } from "@/lib/testing/describe-on-engines";
import { deliverDueWebhooks, retryDelayMs, type DeliveryOptions } from "./delivery";
import { verifyWebhook } from "./signing";
import { addWebhookEndpoint, rotateWebhookSecret, setBalanceThresholds } from "./webhooks";

interface Received {
  headers: Record<string, string>;
  body: string;
}

/** An in-process receiver on 127.0.0.1 answering with the statuses given, in turn (then 204). */
async function receiver(statuses: number[] = []) {
  const received: Received[] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      received.push({ headers: req.headers as Record<string, string>, body: Buffer.concat(chunks).toString("utf8") });
      res.writeHead(statuses.shift() ?? 204).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;
  return { url, received, close: () => new Promise<void>((r) => server.close(() => r())) };
}

const FAST: DeliveryOptions = {
  retryBaseMs: 0,
  retryCapMs: 0,
  maxAttempts: 3,
  leaseMs: 30_000,
  timeoutMs: 5_000,
  batchSize: 16,
};

describe("retryDelayMs", () => {
  it("doubles per attempt from the base, caps, and jitters within 50-100% of the step", () => {
    const options = { retryBaseMs: 1000, retryCapMs: 60_000 };
    expect([1, 2, 3, 4, 7, 20].map((n) => retryDelayMs(n, options, () => 0.999999))).toEqual([
      1000, 2000, 4000, 8000, 60_000, 60_000,
    ]);
    expect([1, 2, 3].map((n) => retryDelayMs(n, options, () => 0))).toEqual([500, 1000, 2000]);
  });
});

describeOnEngines("webhook delivery", (handle) => {
  const saved = process.env.WEBHOOKS_ALLOW_PRIVATE;
  afterEach(() => {
    process.env.WEBHOOKS_ALLOW_PRIVATE = "1";
  });
  afterAll(async () => {
    if (saved === undefined) delete process.env.WEBHOOKS_ALLOW_PRIVATE;
    else process.env.WEBHOOKS_ALLOW_PRIVATE = saved;
  });

  /** A group with one threshold and an endpoint; each call of `cross()` makes one event. */
  async function setup(url: string) {
    process.env.WEBHOOKS_ALLOW_PRIVATE = "1";
    const group = await createBillingGroup(handle().db, {
      name: "W",
      currency: "USD",
      openingBalanceMicros: 10_000_000n,
      creditLimitMicros: 100_000_000n,
    });
    const endpoint = await addWebhookEndpoint(handle().db, { url, billingGroupId: group.id });
    await setBalanceThresholds(handle().db, group.id, [5_000_000n]);
    let low = false;
    const cross = () => {
      low = !low;
      return handle().db.execute(
        sql`UPDATE billing_groups SET balance_micros = ${low ? 1_000_000 : 9_000_000} WHERE id = ${group.id}`,
      );
    };
    return { group, endpoint, cross };
  }
  const deliveries = (endpointId: string) =>
    queryRows<{
      event_id: string;
      attempts: number;
      delivered: boolean;
      failed: boolean;
      last_error: string | null;
      due_in_ms: number;
    }>(
      handle().db,
      sql`SELECT event_id, attempts, delivered_at IS NOT NULL AS delivered, failed_at IS NOT NULL AS failed, last_error,
            (extract(epoch FROM next_attempt_at - now()) * 1000)::float8 AS due_in_ms
          FROM webhook_deliveries WHERE endpoint_id = ${endpointId} ORDER BY event_id`,
    );

  it("POSTs the event with Standard Webhooks headers the receiver verifies, and marks it delivered", async () => {
    const r = await receiver();
    const { endpoint, cross } = await setup(r.url);
    await cross();
    expect(await deliverDueWebhooks(handle().db, FAST)).toMatchObject({ delivered: 1 });
    expect(r.received).toHaveLength(1);
    const [got] = r.received;
    const [event] = await queryRows<{ id: string; body: string }>(
      handle().db,
      sql`SELECT e.id, e.body FROM webhook_events e JOIN webhook_deliveries d ON d.event_id = e.id WHERE d.endpoint_id = ${endpoint.id}`,
    );
    expect(got.headers["webhook-id"]).toBe(event.id);
    expect(got.body).toBe(event.body);
    expect(got.headers["content-type"]).toBe("application/json");
    expect(verifyWebhook(endpoint.secrets[0].secret, got.headers, got.body)).toBe(true);
    expect((await deliveries(endpoint.id))[0]).toMatchObject({ delivered: true, attempts: 1 });
    expect(await deliverDueWebhooks(handle().db, FAST)).toMatchObject({ claimed: 0 });
    await r.close();
  });

  it("retries a failed attempt with the same webhook-id and body, after a backoff; gives up after maxAttempts", async () => {
    const r = await receiver([500, 503]);
    const { endpoint, cross } = await setup(r.url);
    await cross();
    const slow = { ...FAST, retryBaseMs: 3_600_000, retryCapMs: 3_600_000 };
    expect(await deliverDueWebhooks(handle().db, slow)).toMatchObject({ claimed: 1, delivered: 0 });
    const [afterFirst] = await deliveries(endpoint.id);
    expect(afterFirst).toMatchObject({ delivered: false, attempts: 1, last_error: "HTTP 500" });
    // Jittered backoff: between 50% and 100% of the first step (1 h), so not due now.
    expect(afterFirst.due_in_ms).toBeGreaterThan(1_700_000);
    expect(afterFirst.due_in_ms).toBeLessThanOrEqual(3_600_000);
    expect(await deliverDueWebhooks(handle().db, slow)).toMatchObject({ claimed: 0 });
    await handle().db.execute(
      sql`UPDATE webhook_deliveries SET next_attempt_at = now() WHERE endpoint_id = ${endpoint.id}`,
    );
    expect(await deliverDueWebhooks(handle().db, FAST)).toMatchObject({ claimed: 1, delivered: 0 });
    expect(await deliverDueWebhooks(handle().db, FAST)).toMatchObject({ claimed: 1, delivered: 1 });
    expect(new Set(r.received.map((x) => x.headers["webhook-id"])).size).toBe(1);
    expect(new Set(r.received.map((x) => x.body)).size).toBe(1);
    for (const x of r.received) expect(verifyWebhook(endpoint.secrets[0].secret, x.headers, x.body)).toBe(true);

    const failing = await receiver([500, 500, 500, 500]);
    const second = await setup(failing.url);
    await second.cross();
    for (let i = 0; i < 3; i++) await deliverDueWebhooks(handle().db, FAST);
    expect((await deliveries(second.endpoint.id))[0]).toMatchObject({ delivered: false, failed: true, attempts: 3 });
    expect(await deliverDueWebhooks(handle().db, FAST)).toMatchObject({ claimed: 0 });
    await r.close();
    await failing.close();
  });

  it("signs with the old and the new secret during a rotation, with the new one only after the overlap", async () => {
    const r = await receiver();
    const { endpoint, cross } = await setup(r.url);
    const rotated = await rotateWebhookSecret(handle().db, endpoint.id, 3600);
    expect(rotated.secrets).toHaveLength(2);
    const [oldSecret, newSecret] = rotated.secrets.map((s) => s.secret);
    expect(oldSecret).toBe(endpoint.secrets[0].secret);
    /** Delivers one new event: how many signatures it carries and which of `secrets` verify it. */
    const deliverOne = async (secrets: string[]) => {
      await cross();
      await deliverDueWebhooks(handle().db, FAST);
      const message = r.received.at(-1)!;
      return {
        signatures: message.headers["webhook-signature"].split(" ").length,
        verifies: secrets.map((s) => verifyWebhook(s, message.headers, message.body)),
      };
    };
    expect(await deliverOne([oldSecret, newSecret])).toEqual({ signatures: 2, verifies: [true, true] });
    const [current] = (await rotateWebhookSecret(handle().db, endpoint.id, 0)).secrets.map((s) => s.secret);
    expect(await deliverOne([oldSecret, newSecret, current])).toEqual({
      signatures: 1,
      verifies: [false, false, true],
    });
    expect(r.received).toHaveLength(2);
    const [, , newest] = (await rotateWebhookSecret(handle().db, endpoint.id, 3600)).secrets.map((s) => s.secret);
    expect(newest).toBeUndefined(); // the expired two are gone: only the last rotation's and the newest remain
    await r.close();
  });

  it("refuses to connect to a loopback target unless WEBHOOKS_ALLOW_PRIVATE=1 (checked at delivery too)", async () => {
    const r = await receiver();
    const { endpoint, cross } = await setup(r.url);
    await cross();
    delete process.env.WEBHOOKS_ALLOW_PRIVATE;
    await deliverDueWebhooks(handle().db, FAST);
    expect(r.received).toHaveLength(0);
    expect((await deliveries(endpoint.id))[0].last_error).toMatch(/loopback, private or link-local/);
    await r.close();
  });

  it("leaves a delivery leased by another (live) worker alone and takes it over once the lease lapses (the worker died)", async () => {
    const r = await receiver();
    const { endpoint, cross } = await setup(r.url);
    await cross();
    // Another process claimed it (attempt 1) and is still within its lease.
    await handle().db.execute(
      sql`UPDATE webhook_deliveries SET attempts = 1, leased_until = now() + interval '1 hour' WHERE endpoint_id = ${endpoint.id}`,
    );
    await deliverDueWebhooks(handle().db, FAST);
    expect(r.received).toHaveLength(0);
    expect((await deliveries(endpoint.id))[0]).toMatchObject({ delivered: false, attempts: 1 });
    // It died: the lease lapses and this worker sends the message again, as attempt 2 with the same webhook-id.
    await handle().db.execute(
      sql`UPDATE webhook_deliveries SET leased_until = now() - interval '1 second' WHERE endpoint_id = ${endpoint.id}`,
    );
    await deliverDueWebhooks(handle().db, FAST);
    expect(r.received).toHaveLength(1);
    expect((await deliveries(endpoint.id))[0]).toMatchObject({ delivered: true, attempts: 2 });
    await r.close();
  });

  it("two workers draining one outbox concurrently deliver every event exactly once", async () => {
    const r = await receiver();
    const { endpoint, cross } = await setup(r.url);
    for (let i = 0; i < 40; i++) await cross();
    const options = { ...FAST, batchSize: 4 };
    const drain = async () => {
      while ((await deliverDueWebhooks(handle().db, options)).claimed > 0);
    };
    await Promise.all([drain(), drain(), drain()]);
    const ids = r.received.map((x) => x.headers["webhook-id"]);
    expect(ids).toHaveLength(40);
    expect(new Set(ids).size).toBe(40);
    expect((await deliveries(endpoint.id)).every((d) => d.delivered && Number(d.attempts) === 1)).toBe(true);
    await r.close();
  });
});
