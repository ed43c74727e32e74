import http from "node:http";
import type { AddressInfo, Socket } from "node:net";
import { sql } from "drizzle-orm";
import { afterAll, afterEach, beforeEach, describe, expect, it } from "vitest";
import { createBillingGroup } from "@/lib/billing/groups";
import { queryRows } from "@/lib/db/client";
import { describeOnEngines } from "@/lib/testing/describe-on-engines";
import { waitUntil } from "@/lib/testing/wait-until";
import {
  checkDeliveryOptions,
  deliverDueWebhooks,
  MAX_RESPONSE_BYTES,
  postWebhook,
  retryDelayMs,
  startWebhookWorker,
  type DeliveryOptions,
} from "./delivery";
import { verifyWebhook } from "./signing";
import { addWebhookEndpoint, rotateWebhookSecret, setBalanceThresholds } from "./webhooks";

interface Received {
  headers: Record<string, string>;
  body: string;
}

/** An in-process receiver on 127.0.0.1 answering with the statuses given, in turn (then 204). */
async function receiver(statuses: number[] = []) {
  const received: Received[] = [];
  let inFlight = 0;
  let maxInFlight = 0;
  const server = http.createServer((req, res) => {
    inFlight += 1;
    maxInFlight = Math.max(maxInFlight, inFlight);
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      received.push({ headers: req.headers as Record<string, string>, body: Buffer.concat(chunks).toString("utf8") });
      // Answered a little later, so that a second request sent meanwhile would overlap this one.
      setTimeout(() => {
        inFlight -= 1;
        res.writeHead(statuses.shift() ?? 204).end();
      }, 5);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;
  return {
    url,
    received,
    /** The most requests this receiver had open at once. */
    maxInFlight: () => maxInFlight,
    close: () => new Promise<void>((r) => server.close(() => r())),
  };
}

interface SlowAnswer {
  /** `drip`: one body byte every 50 ms (at most 600: 30 s); `flood`: 64 MiB as fast as it is read; `hang`: nothing. */
  body: "drip" | "flood" | "hang";
  status?: number;
}

/**
 * A receiver on 127.0.0.1 that answers its first requests as `answers` says, in turn (then 204 at once), and records
 * each request's webhook-id and whether the sender closed the connection before the answer was complete.
 */
async function slowReceiver(answers: SlowAnswer[]) {
  const requests: { id: string; open: boolean; cutOff: boolean; bytesSent: number }[] = [];
  const sockets = new Set<Socket>();
  const server = http.createServer((req, res) => {
    req.resume();
    req.on("end", () => {
      const answer = answers.shift();
      const r = { id: String(req.headers["webhook-id"]), open: true, cutOff: false, bytesSent: 0 };
      requests.push(r);
      if (!answer) {
        res.writeHead(204).end();
        r.open = false;
        return;
      }
      sockets.add(req.socket);
      let ended = false;
      let timer: NodeJS.Timeout | undefined;
      res.on("close", () => {
        clearInterval(timer);
        sockets.delete(req.socket);
        r.open = false;
        r.cutOff = !ended;
      });
      if (answer.body === "hang") return;
      res.writeHead(answer.status ?? 200, { "content-type": "text/plain" });
      res.flushHeaders();
      if (answer.body === "drip") {
        timer = setInterval(() => {
          if (r.bytesSent >= 600) {
            ended = true;
            res.end();
          } else {
            res.write("x");
            r.bytesSent += 1;
          }
        }, 50);
        return;
      }
      const chunk = Buffer.alloc(16 * 1024, "x");
      const flood = () => {
        while (r.open && r.bytesSent < 64 * 1024 * 1024) {
          r.bytesSent += chunk.length;
          if (!res.write(chunk)) return void res.once("drain", flood);
        }
        ended = true;
        res.end();
      };
      flood();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;
  return {
    url,
    requests,
    /** Drops the connections of the answers still running (the sender sees them reset). */
    cut: () => sockets.forEach((s) => s.destroy()),
    close: () => {
      sockets.forEach((s) => s.destroy());
      server.closeAllConnections();
      return new Promise<void>((r) => server.close(() => r()));
    },
  };
}

/** Until the receiver has seen the connection of `request` close (the sender's close reaches it a moment later). */
const closed = (request: { open: boolean }) => waitUntil(() => !request.open, "the connection to close", 30_000);

const FAST: DeliveryOptions = {
  retryBaseMs: 0,
  retryCapMs: 0,
  maxAttempts: 3,
  leaseMs: 30_000,
  timeoutMs: 5_000,
  concurrency: 16,
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

describe("delivery options", () => {
  it("refuse a deadline that does not fit twice into the lease, and a concurrency below one", () => {
    expect(() => checkDeliveryOptions(FAST)).not.toThrow();
    expect(() => checkDeliveryOptions({ ...FAST, timeoutMs: 20_000, leaseMs: 30_000 })).toThrow(/at most half/);
    expect(() => checkDeliveryOptions({ ...FAST, timeoutMs: 0 })).toThrow(/at least 1/);
    expect(() => checkDeliveryOptions({ ...FAST, concurrency: 0 })).toThrow(/WEBHOOK_CONCURRENCY/);
    expect(() => startWebhookWorker({} as never, { ...FAST, timeoutMs: 20_000, leaseMs: 30_000 })).toThrow();
  });
});

describe("postWebhook", () => {
  afterEach(() => {
    delete process.env.WEBHOOKS_ALLOW_PRIVATE;
  });

  it("checks the address the connection actually reached, however the name was resolved (DNS rebinding)", async () => {
    delete process.env.WEBHOOKS_ALLOW_PRIVATE;
    let requests = 0;
    const server = http.createServer((_req, res) => {
      requests += 1;
      res.writeHead(204).end();
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const port = (server.address() as AddressInfo).port;
    // A resolver that answers loopback after the guarded lookup said otherwise (or one that skips the guard).
    const rebound = ((_host: string, options: { all?: boolean }, callback: (...args: unknown[]) => void) =>
      options.all ? callback(null, [{ address: "127.0.0.1", family: 4 }]) : callback(null, "127.0.0.1", 4)) as never;
    try {
      const result = await postWebhook(`http://rebound.example:${port}/hook`, {}, "{}", {
        deadlineMs: 10_000,
        lookup: rebound,
      });
      expect(result).toEqual({
        status: null,
        error: expect.stringMatching(/^connected to 127\.0\.0\.1, a non-public/),
      });
      expect(requests).toBe(0); // refused before a byte of the request was sent
      process.env.WEBHOOKS_ALLOW_PRIVATE = "1";
      expect(
        await postWebhook(`http://rebound.example:${port}/hook`, {}, "{}", { deadlineMs: 10_000, lookup: rebound }),
      ).toEqual({ status: 204, error: null, excerpt: "" });
      expect(requests).toBe(1);
    } finally {
      server.closeAllConnections();
      await new Promise<void>((r) => server.close(() => r()));
    }
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
  // Every test starts with an empty outbox: what an earlier one left open (refused, failing) is settled.
  beforeEach(async () => {
    await handle().db.execute(
      sql`UPDATE webhook_deliveries SET failed_at = now(), leased_until = NULL WHERE delivered_at IS NULL AND failed_at IS NULL`,
    );
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
    const literal = await setup(r.url);
    const named = await setup(r.url.replace("127.0.0.1", "localhost"));
    await literal.cross();
    await named.cross();
    delete process.env.WEBHOOKS_ALLOW_PRIVATE;
    await deliverDueWebhooks(handle().db, FAST);
    expect(r.received).toHaveLength(0);
    expect((await deliveries(literal.endpoint.id))[0].last_error).toMatch(/127\.0\.0\.1 is a non-public address/);
    expect((await deliveries(named.endpoint.id))[0].last_error).toMatch(/localhost resolves to no public address/);
    await r.close();
  });

  it("ends an attempt at its deadline however slowly the receiver answers; a status that arrived decides", async () => {
    const slow = await slowReceiver([{ body: "drip" }, { body: "drip", status: 503 }, { body: "hang" }]);
    const { endpoint, cross } = await setup(slow.url);
    const options = { ...FAST, timeoutMs: 400 };
    try {
      await cross();
      const started = Date.now();
      expect(await deliverDueWebhooks(handle().db, options)).toEqual({ claimed: 1, delivered: 1 });
      expect(Date.now() - started).toBeGreaterThanOrEqual(options.timeoutMs);
      // Cut off by the sender while still dripping (a drip lasts 30 s): the 200 it had sent counts.
      await closed(slow.requests[0]);
      expect(slow.requests[0]).toMatchObject({ open: false, cutOff: true });
      expect(slow.requests[0].bytesSent).toBeLessThan(600);

      await cross();
      expect(await deliverDueWebhooks(handle().db, options)).toEqual({ claimed: 1, delivered: 0 });
      await closed(slow.requests[1]);
      expect(slow.requests[1]).toMatchObject({ open: false, cutOff: true });
      expect((await deliveries(endpoint.id)).find((d) => d.event_id === slow.requests[1].id)).toMatchObject({
        delivered: false,
        last_error: "HTTP 503 (answer cut off at 400 ms)",
      });

      await cross();
      expect(await deliverDueWebhooks(handle().db, options)).toEqual({ claimed: 1, delivered: 0 });
      await closed(slow.requests[2]);
      expect(slow.requests[2]).toMatchObject({ open: false, cutOff: true });
      expect((await deliveries(endpoint.id)).find((d) => d.event_id === slow.requests[2].id)).toMatchObject({
        delivered: false,
        last_error: "no answer within 400 ms",
      });
    } finally {
      await slow.close();
    }
  });

  it(`reads at most ${MAX_RESPONSE_BYTES} bytes of an answer, then closes the connection; the status decides`, async () => {
    const big = await slowReceiver([{ body: "flood" }, { body: "flood", status: 500 }]);
    const { endpoint, cross } = await setup(big.url);
    try {
      await cross();
      expect(await deliverDueWebhooks(handle().db, FAST)).toEqual({ claimed: 1, delivered: 1 });
      // 64 MiB offered: the sender closed long before reading it all.
      await closed(big.requests[0]);
      expect(big.requests[0]).toMatchObject({ open: false, cutOff: true });
      await cross();
      expect(await deliverDueWebhooks(handle().db, FAST)).toEqual({ claimed: 1, delivered: 0 });
      await closed(big.requests[1]);
      expect(big.requests[1]).toMatchObject({ open: false, cutOff: true });
      expect((await deliveries(endpoint.id)).find((d) => d.event_id === big.requests[1].id)?.last_error).toBe(
        `HTTP 500 (answer cut off after ${MAX_RESPONSE_BYTES} bytes)`,
      );
    } finally {
      await big.close();
    }
  });

  it("keeps delivering to other endpoints while one receiver drips its answer; one endpoint has one attempt at a time, in event order", async () => {
    const slow = await slowReceiver([{ body: "drip" }]);
    const fast = await receiver();
    const a = await setup(slow.url);
    const b = await setup(fast.url);
    // The deadline is far beyond what this test waits for: the slow attempt ends when the test cuts it.
    const worker = startWebhookWorker(handle().db, { ...FAST, timeoutMs: 60_000, leaseMs: 120_000 }, 20);
    try {
      await a.cross();
      await waitUntil(() => slow.requests.length === 1, "the slow receiver to get the first message", 60_000);
      await a.cross(); // the slow endpoint's next message: waits for the attempt in flight
      await b.cross();
      await waitUntil(
        () => fast.received.length === 1 || !slow.requests[0].open,
        "the other endpoint's message, or the end of the slow answer",
        60_000,
      );
      expect(fast.received).toHaveLength(1);
      expect(slow.requests[0].open).toBe(true); // it arrived while the slow answer was still dripping
      expect(slow.requests).toHaveLength(1);
      // Another process's claim takes nothing either: the slow endpoint's next message is due, but it is busy.
      expect(await deliverDueWebhooks(handle().db, FAST)).toEqual({ claimed: 0, delivered: 0 });

      slow.cut(); // the receiver drops the connection after its 200: delivered, and the next one follows
      const delivered = async () => (await deliveries(a.endpoint.id)).every((d) => d.delivered);
      await waitUntil(delivered, "both of the slow endpoint's messages to be delivered", 60_000);
      const inOrder = await queryRows<{ id: string }>(
        handle().db,
        sql`SELECT e.id FROM webhook_events e JOIN webhook_deliveries d ON d.event_id = e.id
            WHERE d.endpoint_id = ${a.endpoint.id} ORDER BY e.seq`,
      );
      expect(slow.requests.map((r) => r.id)).toEqual(inOrder.map((e) => e.id));
      expect((await deliveries(a.endpoint.id)).map((d) => Number(d.attempts))).toEqual([1, 1]);
    } finally {
      await slow.close();
      await fast.close();
      await worker.stop();
    }
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

  it("three workers draining one outbox concurrently deliver every event exactly once, each endpoint's one at a time and in order", async () => {
    const endpoints = [];
    for (let i = 0; i < 4; i++) {
      const r = await receiver();
      endpoints.push({ r, ...(await setup(r.url)) });
    }
    for (let i = 0; i < 10; i++) for (const e of endpoints) await e.cross();
    const options = { ...FAST, concurrency: 3 };
    const pending = async () => {
      const [row] = await queryRows<{ n: number | bigint }>(
        handle().db,
        sql`SELECT count(*) AS n FROM webhook_deliveries WHERE delivered_at IS NULL AND failed_at IS NULL`,
      );
      return Number(row.n);
    };
    const drain = async () => {
      while ((await pending()) > 0) {
        await deliverDueWebhooks(handle().db, options);
        // PGlite answers without I/O: yield, or the other drains' attempts never get to their sockets.
        await new Promise((r) => setImmediate(r));
      }
    };
    await Promise.all([drain(), drain(), drain()]);
    for (const { r, endpoint } of endpoints) {
      const ids = r.received.map((x) => x.headers["webhook-id"]);
      const inOrder = await queryRows<{ id: string }>(
        handle().db,
        sql`SELECT e.id FROM webhook_events e JOIN webhook_deliveries d ON d.event_id = e.id
            WHERE d.endpoint_id = ${endpoint.id} ORDER BY e.seq`,
      );
      expect(ids).toEqual(inOrder.map((e) => e.id));
      expect(r.maxInFlight()).toBe(1);
      expect((await deliveries(endpoint.id)).every((d) => d.delivered && Number(d.attempts) === 1)).toBe(true);
      await r.close();
    }
  });
});
