import http from "node:http";
import https from "node:https";
import net from "node:net";
import { sql } from "drizzle-orm";
import { intFromEnv } from "@/lib/config/env";
import { queryRows, type Db } from "@/lib/db/client";
import { webhookHeaders } from "./signing";
import { guardedLookup, isBlockedAddress, privateTargetsAllowed } from "./url-guard";

// Delivery of the outbox (webhook_deliveries): at least once, with a stable `webhook-id` receivers dedupe on.
// Claims are leases taken with FOR UPDATE SKIP LOCKED, so several app processes share the work without delivering
// one message twice; a worker that dies mid-delivery leaves a lease that lapses, and another one retries.

export interface DeliveryOptions {
  /** First retry delay; doubles per attempt up to `retryCapMs`, with jitter (50-100% of the step). */
  retryBaseMs: number;
  retryCapMs: number;
  /** After this many failed attempts the delivery is marked failed. */
  maxAttempts: number;
  /** How long a claim stays exclusive; must exceed `timeoutMs`. */
  leaseMs: number;
  /** Per request. */
  timeoutMs: number;
  /** Deliveries claimed (and sent in parallel) per round. */
  batchSize: number;
}

export function deliveryOptionsFromEnv(): DeliveryOptions {
  return {
    retryBaseMs: intFromEnv("WEBHOOK_RETRY_BASE_MS", 5_000),
    retryCapMs: intFromEnv("WEBHOOK_RETRY_CAP_MS", 6 * 3_600_000),
    maxAttempts: intFromEnv("WEBHOOK_MAX_ATTEMPTS", 15),
    leaseMs: intFromEnv("WEBHOOK_LEASE_MS", 60_000),
    timeoutMs: intFromEnv("WEBHOOK_TIMEOUT_MS", 15_000),
    batchSize: 16,
  };
}

/** Delay before the next attempt after `attempts` failed ones: exponential, capped, with jitter. */
export function retryDelayMs(
  attempts: number,
  options: Pick<DeliveryOptions, "retryBaseMs" | "retryCapMs">,
  random = Math.random,
): number {
  const step = Math.min(options.retryCapMs, options.retryBaseMs * 2 ** Math.max(0, attempts - 1));
  return Math.round(step * (0.5 + random() * 0.5));
}

interface Claimed {
  event_id: string;
  endpoint_id: string;
  attempts: number;
  body: string;
  url: string;
  secrets: string | null;
}

async function claim(db: Db, options: DeliveryOptions): Promise<Claimed[]> {
  const lease = `${options.leaseMs} milliseconds`;
  return queryRows<Claimed>(
    db,
    sql`WITH due AS (
          SELECT event_id, endpoint_id FROM webhook_deliveries
          WHERE delivered_at IS NULL AND failed_at IS NULL AND next_attempt_at <= now()
            AND (leased_until IS NULL OR leased_until < now())
          ORDER BY next_attempt_at LIMIT ${options.batchSize}
          FOR UPDATE SKIP LOCKED
        ), claimed AS (
          UPDATE webhook_deliveries d SET leased_until = now() + ${lease}::interval, attempts = d.attempts + 1
          FROM due WHERE d.event_id = due.event_id AND d.endpoint_id = due.endpoint_id
          RETURNING d.event_id, d.endpoint_id, d.attempts
        )
        SELECT c.event_id, c.endpoint_id, c.attempts, e.body, w.url,
          (SELECT json_agg(s.secret ORDER BY s.id) FROM webhook_secrets s
            WHERE s.endpoint_id = w.id AND (s.expires_at IS NULL OR s.expires_at > now()))::text AS secrets
        FROM claimed c JOIN webhook_events e ON e.id = c.event_id JOIN webhook_endpoints w ON w.id = c.endpoint_id`,
  );
}

export interface PostResult {
  status: number | null;
  error: string | null;
}

/** One POST; no redirects followed, the response body drained and dropped. */
export function postWebhook(
  url: string,
  headers: Record<string, string>,
  body: string,
  timeoutMs: number,
): Promise<PostResult> {
  const target = new URL(url);
  // Node connects to an IP literal without calling `lookup`: check it here.
  const host = target.hostname.replace(/^\[|\]$/g, "");
  if (net.isIP(host) && isBlockedAddress(host) && !privateTargetsAllowed()) {
    return Promise.resolve({ status: null, error: `${host} is a loopback, private or link-local address` });
  }
  return new Promise((resolve) => {
    const request = (target.protocol === "https:" ? https : http).request(
      target,
      {
        method: "POST",
        lookup: guardedLookup as never,
        timeout: timeoutMs,
        headers: {
          ...headers,
          "content-type": "application/json",
          "content-length": Buffer.byteLength(body),
          "user-agent": "Callbook-Webhooks/1",
        },
      },
      (response) => {
        response.on("data", () => undefined);
        response.on("end", () => resolve({ status: response.statusCode ?? null, error: null }));
        response.on("error", (e) => resolve({ status: response.statusCode ?? null, error: e.message }));
      },
    );
    request.on("timeout", () => request.destroy(new Error(`no answer within ${timeoutMs} ms`)));
    request.on("error", (e) => resolve({ status: null, error: e.message.slice(0, 500) }));
    request.end(body);
  });
}

async function deliverOne(db: Db, c: Claimed, options: DeliveryOptions): Promise<boolean> {
  const secrets = c.secrets ? (JSON.parse(c.secrets) as string[]) : [];
  const result: PostResult =
    secrets.length === 0
      ? { status: null, error: "the endpoint has no live secret" }
      : await postWebhook(
          c.url,
          { ...webhookHeaders(secrets, c.event_id, Math.floor(Date.now() / 1000), c.body) },
          c.body,
          options.timeoutMs,
        );
  const ok = result.status !== null && result.status >= 200 && result.status < 300;
  const attempts = Number(c.attempts);
  // `attempts = claimed` fences the update: a worker whose lease lapsed and was re-claimed writes nothing.
  if (ok) {
    await db.execute(sql`UPDATE webhook_deliveries SET delivered_at = now(), leased_until = NULL, last_status = ${result.status}, last_error = NULL
                         WHERE event_id = ${c.event_id} AND endpoint_id = ${c.endpoint_id} AND attempts = ${attempts}`);
  } else {
    const error = result.error ?? `HTTP ${result.status}`;
    const giveUp = attempts >= options.maxAttempts;
    const delay = `${retryDelayMs(attempts, options)} milliseconds`;
    await db.execute(sql`UPDATE webhook_deliveries SET leased_until = NULL, last_status = ${result.status}, last_error = ${error},
                           next_attempt_at = now() + ${delay}::interval, failed_at = CASE WHEN ${giveUp} THEN now() END
                         WHERE event_id = ${c.event_id} AND endpoint_id = ${c.endpoint_id} AND attempts = ${attempts}`);
  }
  return ok;
}

/** One round: claims due deliveries and sends them. Answers how many were claimed and how many succeeded. */
export async function deliverDueWebhooks(
  db: Db,
  options: DeliveryOptions = deliveryOptionsFromEnv(),
): Promise<{ claimed: number; delivered: number }> {
  const claimed = await claim(db, options);
  const results = await Promise.all(claimed.map((c) => deliverOne(db, c, options)));
  return { claimed: claimed.length, delivered: results.filter(Boolean).length };
}

export interface WebhookWorker {
  stop(): Promise<void>;
}

/**
 * Polls the outbox every `pollMs` (and at once again while rounds come back full) until stopped. A failing round
 * (database unreachable) is logged and retried at the next tick; the worker never crashes the process.
 */
export function startWebhookWorker(
  db: Db,
  options: DeliveryOptions = deliveryOptionsFromEnv(),
  pollMs = intFromEnv("WEBHOOK_POLL_MS", 1_000),
): WebhookWorker {
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<void> = Promise.resolve();
  let lastError = "";
  let lastLoggedAt = 0;
  const tick = () => {
    running = (async () => {
      try {
        for (;;) {
          const { claimed } = await deliverDueWebhooks(db, options);
          if (stopped || claimed < options.batchSize) break;
        }
      } catch (e) {
        // Once per distinct error per minute: a database outage must not flood the log at every poll.
        const error = (e as Error).message;
        if (error !== lastError || Date.now() - lastLoggedAt > 60_000) {
          lastError = error;
          lastLoggedAt = Date.now();
          process.stderr.write(
            `${JSON.stringify({ time: new Date().toISOString(), event: "webhook delivery round failed", error })}\n`,
          );
        }
      }
      if (!stopped) {
        timer = setTimeout(tick, pollMs);
        timer.unref();
      }
    })();
  };
  tick();
  return {
    async stop() {
      stopped = true;
      if (timer) clearTimeout(timer);
      await running;
    },
  };
}
