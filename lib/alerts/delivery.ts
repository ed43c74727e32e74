import http from "node:http";
import https from "node:https";
import net from "node:net";
import { sql } from "drizzle-orm";
import { DUE_NOW } from "@/lib/db/due-now";
import { webhookDeliverySettings } from "@/lib/config/env";
import { queryRows, type Db } from "@/lib/db/client";
import { webhookHeaders } from "./signing";
import { guardedLookup, isBlockedAddress, NOT_PUBLIC, privateTargetsAllowed } from "./url-guard";

// Delivery of the outbox (webhook_deliveries): at least once, with a stable `webhook-id` receivers dedupe on.
// Claims are leases taken under row locks (SKIP LOCKED), so several app processes share the work without delivering
// one message twice or sending one endpoint two at once; a worker that dies mid-delivery leaves a lease that lapses,
// and another one retries. Each attempt has a hard deadline well inside its lease (README "Prepaid authorizations and
// balance alerts").

export interface DeliveryOptions {
  /** First retry delay; doubles per attempt up to `retryCapMs`, with jitter (50-100% of the step). */
  retryBaseMs: number;
  retryCapMs: number;
  /** After this many failed attempts the delivery is marked failed. */
  maxAttempts: number;
  /** How long a claim stays exclusive; at least twice `timeoutMs`, so an attempt always ends inside its lease. */
  leaseMs: number;
  /** Hard deadline of one attempt, all of it: connect, request, response headers and body. */
  timeoutMs: number;
  /** Attempts in flight per process, each to a different endpoint (one endpoint has at most one, in any process). */
  concurrency: number;
}

export function deliveryOptionsFromEnv(): DeliveryOptions {
  const { retryBaseMs, retryCapMs, maxAttempts, leaseMs, timeoutMs, concurrency } = webhookDeliverySettings();
  return { retryBaseMs, retryCapMs, maxAttempts, leaseMs, timeoutMs, concurrency };
}

/** Throws on options that would break the guarantees above (a misconfiguration fails when the worker starts). */
export function checkDeliveryOptions(options: DeliveryOptions): void {
  // An attempt that outlived its lease could be claimed and sent by another process at the same time.
  if (!(options.timeoutMs >= 1 && options.timeoutMs * 2 <= options.leaseMs))
    throw new Error(
      `WEBHOOK_TIMEOUT_MS (${options.timeoutMs}) must be at least 1 and at most half of WEBHOOK_LEASE_MS (${options.leaseMs})`,
    );
  if (!(Number.isInteger(options.concurrency) && options.concurrency >= 1))
    throw new Error(`WEBHOOK_CONCURRENCY must be a whole number >= 1, got ${options.concurrency}`);
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
  /** `attempts` at the last resend: retries count from it. */
  retry_base: number;
  body: string;
  url: string;
  secrets: string | null;
}

/**
 * Claims up to `limit` due deliveries, at most one per endpoint and none of an endpoint with an attempt in flight
 * (a live lease, in any process): per endpoint, the due delivery of the oldest event. Two statements in one
 * transaction: the first locks the candidate endpoints' rows (SKIP LOCKED: another claimer has them; NO KEY UPDATE,
 * which the foreign-key check of a new event's delivery does not wait for), the second reads the deliveries with a
 * snapshot taken after those locks, so it sees every lease an earlier holder committed and an endpoint never gets
 * two attempts at once. The UPDATE's own lease check keeps one delivery from being claimed twice whatever the rest
 * says.
 */
async function claim(db: Db, options: DeliveryOptions, limit: number): Promise<Claimed[]> {
  const lease = `${options.leaseMs} milliseconds`;
  return db.transaction(async (tx) => {
    const endpoints = await queryRows<{ id: string }>(
      tx,
      // A disabled endpoint's deliveries wait until it is enabled again.
      sql`SELECT w.id FROM webhook_endpoints w
          JOIN (SELECT endpoint_id, min(next_attempt_at) AS due_at FROM webhook_deliveries
                WHERE delivered_at IS NULL AND failed_at IS NULL AND next_attempt_at <= ${DUE_NOW}
                GROUP BY endpoint_id
                HAVING bool_and(leased_until IS NULL OR leased_until < now())) due ON due.endpoint_id = w.id
          WHERE w.disabled_at IS NULL
          ORDER BY due.due_at, w.id LIMIT ${limit}
          FOR NO KEY UPDATE OF w SKIP LOCKED`,
    );
    if (endpoints.length === 0) return [];
    const ids = sql.join(
      endpoints.map((e) => sql`${e.id}`),
      sql`, `,
    );
    return queryRows<Claimed>(
      tx,
      sql`WITH heads AS (
            SELECT DISTINCT ON (d.endpoint_id) d.event_id, d.endpoint_id
            FROM webhook_deliveries d JOIN webhook_events e ON e.id = d.event_id
            WHERE d.endpoint_id IN (${ids}) AND d.delivered_at IS NULL AND d.failed_at IS NULL AND d.next_attempt_at <= ${DUE_NOW}
            ORDER BY d.endpoint_id, e.seq
          ), idle AS (
            SELECT h.event_id, h.endpoint_id FROM heads h
            WHERE NOT EXISTS (SELECT 1 FROM webhook_deliveries b
                              WHERE b.endpoint_id = h.endpoint_id AND b.delivered_at IS NULL AND b.failed_at IS NULL
                                AND b.leased_until >= now())
          ), claimed AS (
            UPDATE webhook_deliveries d SET leased_until = now() + ${lease}::interval, attempts = d.attempts + 1
            FROM idle WHERE d.event_id = idle.event_id AND d.endpoint_id = idle.endpoint_id
              AND d.delivered_at IS NULL AND d.failed_at IS NULL AND (d.leased_until IS NULL OR d.leased_until < now())
            RETURNING d.event_id, d.endpoint_id, d.attempts, d.retry_base
          )
          SELECT c.event_id, c.endpoint_id, c.attempts, c.retry_base, e.body, w.url,
            (SELECT json_agg(s.secret ORDER BY s.id) FROM webhook_secrets s
              WHERE s.endpoint_id = w.id AND (s.expires_at IS NULL OR s.expires_at > now()))::text AS secrets
          FROM claimed c JOIN webhook_events e ON e.id = c.event_id JOIN webhook_endpoints w ON w.id = c.endpoint_id`,
    );
  });
}

export interface PostResult {
  /** The receiver's status (it alone decides the outcome), null when none arrived. */
  status: number | null;
  error: string | null;
  /** The start of the answer's body as text (EXCERPT_BYTES at most), for the delivery log; null when none came. */
  excerpt?: string | null;
}

/** At most this much of an answer is read (then the connection is closed); only its start is kept. */
export const MAX_RESPONSE_BYTES = 64 * 1024;
/** How much of an answer the delivery log keeps. */
export const EXCERPT_BYTES = 1024;

// No keep-alive: every attempt has its own connection, which its deadline closes; and not the global agents, which a
// process-wide proxy setting (NODE_USE_ENV_PROXY) would route around the address check below.
const AGENTS = { http: new http.Agent({ keepAlive: false }), https: new https.Agent({ keepAlive: false }) };

export interface PostOptions {
  /** Hard deadline of the whole attempt. */
  deadlineMs: number;
  /** Name resolution for the connection; the guarded one unless a test replaces it. */
  lookup?: typeof guardedLookup;
}

/**
 * One POST, ended by `deadlineMs` whatever the receiver does (a slow drip of bytes included). No redirects followed;
 * the answer is read up to MAX_RESPONSE_BYTES and dropped. A status that arrived decides the outcome even when the
 * body is then cut off (by the cap, the deadline or the receiver).
 */
export function postWebhook(
  url: string,
  headers: Record<string, string>,
  body: string,
  { deadlineMs, lookup = guardedLookup }: PostOptions,
): Promise<PostResult> {
  const target = new URL(url);
  // Node connects to an IP literal without calling `lookup`: check it here, before connecting at all.
  const host = target.hostname.replace(/^\[|\]$/g, "");
  if (net.isIP(host) && !privateTargetsAllowed() && isBlockedAddress(host)) {
    return Promise.resolve({ status: null, error: `${host} is ${NOT_PUBLIC}` });
  }
  const https_ = target.protocol === "https:";
  return new Promise((resolve) => {
    let status: number | null = null;
    let done = false;
    const kept: Buffer[] = [];
    let keptBytes = 0;
    const request = (https_ ? https : http).request(target, {
      method: "POST",
      agent: https_ ? AGENTS.https : AGENTS.http,
      lookup: lookup as never,
      headers: {
        ...headers,
        "content-type": "application/json",
        "content-length": Buffer.byteLength(body),
        "user-agent": "Callbook-Webhooks/1",
      },
    });
    const finish = (error: string | null) => {
      if (done) return;
      done = true;
      clearTimeout(deadline);
      request.destroy(); // closes the connection: nothing more is read
      // An excerpt only when an answer arrived.
      if (status === null) resolve({ status, error });
      else resolve({ status, error, excerpt: Buffer.concat(kept).subarray(0, EXCERPT_BYTES).toString("utf8") });
    };
    const deadline = setTimeout(
      () => finish(status === null ? `no answer within ${deadlineMs} ms` : `answer cut off at ${deadlineMs} ms`),
      deadlineMs,
    );
    request.on("socket", (socket) => {
      // The address actually connected to decides, however it was found: the last word against DNS rebinding.
      socket.once("connect", () => {
        const address = socket.remoteAddress ?? "";
        if (!privateTargetsAllowed() && isBlockedAddress(address)) finish(`connected to ${address}, ${NOT_PUBLIC}`);
      });
    });
    request.on("response", (response) => {
      status = response.statusCode ?? null;
      let read = 0;
      response.on("data", (chunk: Buffer) => {
        if (keptBytes < EXCERPT_BYTES) {
          kept.push(chunk.subarray(0, EXCERPT_BYTES - keptBytes));
          keptBytes += Math.min(chunk.length, EXCERPT_BYTES - keptBytes);
        }
        read += chunk.length;
        if (read > MAX_RESPONSE_BYTES) finish(`answer cut off after ${MAX_RESPONSE_BYTES} bytes`);
      });
      response.on("end", () => finish(null));
      response.on("error", (e) => finish(e.message.slice(0, 500)));
    });
    request.on("error", (e) => finish(e.message.slice(0, 500)));
    request.end(body);
  });
}

async function deliverOne(db: Db, c: Claimed, options: DeliveryOptions): Promise<boolean> {
  const secrets = c.secrets ? (JSON.parse(c.secrets) as string[]) : [];
  const attemptedAt = new Date();
  const started = performance.now();
  const result: PostResult =
    secrets.length === 0
      ? { status: null, error: "the endpoint has no live secret" }
      : await postWebhook(
          c.url,
          { ...webhookHeaders(secrets, c.event_id, Math.floor(Date.now() / 1000), c.body) },
          c.body,
          { deadlineMs: options.timeoutMs },
        );
  const durationMs = Math.round(performance.now() - started);
  const ok = result.status !== null && result.status >= 200 && result.status < 300;
  const attempts = Number(c.attempts);
  // Retries count from the last resend (a resend restarts them).
  const retries = attempts - Number(c.retry_base);
  const error = ok
    ? null
    : result.status === null
      ? (result.error ?? "no answer")
      : `HTTP ${result.status}${result.error ? ` (${result.error})` : ""}`;
  // The attempt for the delivery log is written with the outcome, by the same statement: only when the fence holds.
  const logAttempt = (updated: ReturnType<typeof sql>) =>
    sql`WITH updated AS (${updated} RETURNING event_id, endpoint_id)
        INSERT INTO webhook_delivery_attempts (event_id, endpoint_id, attempted_at, duration_ms, status, error, response_excerpt)
        SELECT event_id, endpoint_id, ${attemptedAt.toISOString()}::timestamptz, ${durationMs}, ${result.status}::integer,
               ${result.status === null ? error : (result.error ?? null)}, ${result.excerpt ?? null} FROM updated`;
  // `attempts = claimed` fences the update: a worker whose lease lapsed and was re-claimed writes nothing.
  if (ok) {
    await db.execute(
      logAttempt(sql`UPDATE webhook_deliveries SET delivered_at = now(), leased_until = NULL, last_status = ${result.status}, last_error = NULL
                     WHERE event_id = ${c.event_id} AND endpoint_id = ${c.endpoint_id} AND attempts = ${attempts}`),
    );
  } else {
    const giveUp = retries >= options.maxAttempts;
    const delay = `${retryDelayMs(retries, options)} milliseconds`;
    await db.execute(
      logAttempt(sql`UPDATE webhook_deliveries SET leased_until = NULL, last_status = ${result.status}, last_error = ${error},
                       next_attempt_at = now() + ${delay}::interval, failed_at = CASE WHEN ${giveUp} THEN now() END
                     WHERE event_id = ${c.event_id} AND endpoint_id = ${c.endpoint_id} AND attempts = ${attempts}`),
    );
  }
  return ok;
}

/**
 * One round: claims due deliveries (at most one per endpoint, up to `concurrency`), sends them in parallel and waits
 * for all. Answers how many were claimed and how many succeeded. The worker below does not wait like this.
 */
export async function deliverDueWebhooks(
  db: Db,
  options: DeliveryOptions = deliveryOptionsFromEnv(),
): Promise<{ claimed: number; delivered: number }> {
  checkDeliveryOptions(options);
  const claimed = await claim(db, options, options.concurrency);
  const results = await Promise.all(claimed.map((c) => deliverOne(db, c, options)));
  return { claimed: claimed.length, delivered: results.filter(Boolean).length };
}

export interface WebhookWorker {
  stop(): Promise<void>;
}

/**
 * Keeps up to `concurrency` attempts in flight, one per endpoint: it claims as soon as a slot frees (and every
 * `pollMs`), never waiting for the slowest attempt, so one slow receiver (cut off at its deadline) delays no other
 * endpoint. A failing claim or result write (database unreachable) is logged and retried at the next tick (a result
 * not written leaves the lease to lapse: the message is sent again); the worker never crashes the process.
 */
export function startWebhookWorker(
  db: Db,
  options: DeliveryOptions = deliveryOptionsFromEnv(),
  pollMs = webhookDeliverySettings().pollMs,
): WebhookWorker {
  checkDeliveryOptions(options);
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  const inFlight = new Set<Promise<void>>();
  let filling: Promise<void> | null = null;
  let refill = false;
  let lastError = "";
  let lastLoggedAt = 0;

  const logFailure = (e: unknown) => {
    // Once per distinct error per minute: a database outage must not flood the log at every poll.
    const error = (e as Error).message;
    if (error !== lastError || Date.now() - lastLoggedAt > 60_000) {
      lastError = error;
      lastLoggedAt = Date.now();
      process.stderr.write(
        `${JSON.stringify({ time: new Date().toISOString(), event: "webhook delivery round failed", error })}\n`,
      );
    }
  };

  const fill = async () => {
    try {
      for (;;) {
        const free = options.concurrency - inFlight.size;
        if (stopped || free <= 0) return;
        const claimed = await claim(db, options, free);
        for (const c of claimed) {
          const attempt: Promise<void> = deliverOne(db, c, options)
            .then(() => undefined, logFailure)
            .finally(() => {
              inFlight.delete(attempt);
              kick(); // a slot is free, and this endpoint may have more due
            });
          inFlight.add(attempt);
        }
        if (claimed.length < free) return; // nothing more is due now
      }
    } catch (e) {
      logFailure(e);
    }
  };

  // One claim loop at a time; a kick while it runs makes it run once more.
  function kick(): void {
    if (stopped) return;
    if (filling) {
      refill = true;
      return;
    }
    clearTimeout(timer);
    filling = fill().finally(() => {
      filling = null;
      if (refill) {
        refill = false;
        kick();
      } else if (!stopped) {
        timer = setTimeout(kick, pollMs);
        timer.unref();
      }
    });
  }
  kick();
  return {
    async stop() {
      stopped = true;
      clearTimeout(timer);
      await filling;
      await Promise.all([...inFlight]);
    },
  };
}
