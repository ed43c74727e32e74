import path from "node:path";
import proxyaddr from "proxy-addr";

// Every environment variable the product reads is read here (the README's Configuration table documents them; an
// ESLint rule refuses process.env elsewhere in app/, components/ and lib/; instrumentation.ts's NEXT_RUNTIME is a
// bundler constant). Read at call time, not import time: tests and the CLI set these before opening anything.
export function dataDir(): string {
  return path.resolve(/*turbopackIgnore: true*/ process.env.DATA_DIR || "./data");
}

export function databaseUrl(): string | undefined {
  const url = process.env.DATABASE_URL?.trim();
  return url ? url : undefined;
}

export function publicBaseUrl(): string | undefined {
  const url = process.env.PUBLIC_BASE_URL?.trim();
  return url ? url.replace(/\/+$/, "") : undefined;
}

/**
 * The site's origin when PUBLIC_BASE_URL is set: it then IS the origin browsers see, whatever a request's headers
 * say (lib/server/forwarded-headers.ts, docs/contract.md §6). Throws when it is not an http(s) URL.
 */
export function publicOrigin(): { protocol: "http" | "https"; host: string; origin: string } | undefined {
  const raw = publicBaseUrl();
  if (!raw) return undefined;
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new Error(`PUBLIC_BASE_URL must be an http(s) URL such as https://billing.example.com, got "${raw}"`);
  }
  if (url.protocol !== "https:" && url.protocol !== "http:") {
    throw new Error(`PUBLIC_BASE_URL must be an http(s) URL such as https://billing.example.com, got "${raw}"`);
  }
  return { protocol: url.protocol === "https:" ? "https" : "http", host: url.host, origin: url.origin };
}

/** Whether an address (as a socket reports it) is one of TRUSTED_PROXIES; `index` is its hop (0: the peer). */
export type ProxyTrust = (address: string, index: number) => boolean;

let trustCache: { raw: string; trust: ProxyTrust | null } | undefined;

/**
 * TRUSTED_PROXIES: comma-separated addresses and CIDRs (IPv4 or IPv6; also the names `loopback`, `linklocal`,
 * `uniquelocal`) of the proxies in front of this server. Only a request whose TCP peer is one of them has its
 * X-Forwarded-For, -Host and -Proto read; null when unset (every forwarded header is ignored). Throws on an entry
 * that is not an address, so a typo stops the server at start instead of trusting nobody (or everybody).
 */
export function trustedProxies(): ProxyTrust | null {
  const raw = process.env.TRUSTED_PROXIES?.trim() ?? "";
  if (trustCache?.raw === raw) return trustCache.trust;
  const entries = raw
    .split(",")
    .map((e) => e.trim())
    .filter(Boolean);
  let trust: ProxyTrust | null = null;
  if (entries.length > 0) {
    try {
      trust = proxyaddr.compile(entries);
    } catch (e) {
      throw new Error(`TRUSTED_PROXIES: ${(e as Error).message} (in "${raw}")`);
    }
  }
  trustCache = { raw, trust };
  return trust;
}

/**
 * ALLOWED_HOSTS: comma-separated `host[:port]` names (a scheme is ignored) that `nextPageUrl` may
 * name when PUBLIC_BASE_URL is unset. Lower case; empty when unset.
 */
export function allowedHosts(): ReadonlySet<string> {
  const out = new Set<string>();
  for (const raw of (process.env.ALLOWED_HOSTS ?? "").split(",")) {
    const entry = raw
      .trim()
      .toLowerCase()
      .replace(/^[a-z][a-z0-9+.-]*:\/\//, "")
      .replace(/\/.*$/, "");
    if (entry) out.add(entry);
  }
  return out;
}

function intFromEnv(name: string, fallback: number): number {
  const raw = process.env[name];
  if (raw === undefined || raw.trim() === "") return fallback;
  const n = Number(raw);
  if (!Number.isFinite(n) || n < 0) throw new Error(`${name} must be a non-negative number, got "${raw}"`);
  return n;
}

/** Longest call ingest accepts, endTime - startTime in seconds (a broken switch clock can report years). Default 24 h. */
export function maxCallSeconds(): number {
  return intFromEnv("MAX_CALL_SECONDS", 86_400);
}

/**
 * DATABASE_REPLICA_URL: a streaming replica of DATABASE_URL that the listing reads may use. Only with
 * PostgreSQL (DATABASE_URL set); undefined otherwise.
 */
export function databaseReplicaUrl(): string | undefined {
  const url = process.env.DATABASE_REPLICA_URL?.trim();
  return url && databaseUrl() ? url : undefined;
}

/** How stale (ms) the replica may be and still serve listing reads; beyond it they go to the primary. Default 10 s. */
export function replicaMaxLagMs(): number {
  return intFromEnv("DATABASE_REPLICA_MAX_LAG_MS", 10_000);
}

/**
 * PG_PREPARED_STATEMENTS=off: no named statements and no plan-once pool (lib/db/client.ts planOnce), for a pooler in
 * transaction mode that does not track prepared statements (PgBouncer before 1.21, or without max_prepared_statements).
 */
export function preparedStatementsEnabled(): boolean {
  return process.env.PG_PREPARED_STATEMENTS?.trim().toLowerCase() !== "off";
}

/** HTTP port the server listens on (PORT), recorded for the admin channel. Default 3000. */
export function port(): number {
  return Number(process.env.PORT || 3000);
}

/** SESSION_SECRET or CURSOR_SECRET as set; undefined when unset or empty (lib/config/secrets.ts generates one). */
export function secretFromEnv(name: "SESSION_SECRET" | "CURSOR_SECRET"): string | undefined {
  const value = process.env[name];
  return value && value.length > 0 ? value : undefined;
}

/** LOG_REQUESTS=0 silences the per-request log line. */
export function logRequests(): boolean {
  return process.env.LOG_REQUESTS !== "0";
}

/** REDIS_URL: shares the rate limiter and the replica's read-your-writes positions between app processes. */
export function redisUrl(): string | undefined {
  const url = process.env.REDIS_URL?.trim();
  return url ? url : undefined;
}

/** The per-key token bucket: RATE_LIMIT_RPS (default 50) and RATE_LIMIT_BURST (default 100); 0 disables. */
export function rateLimitSettings(): { ratePerSecond: number; burst: number } {
  return { ratePerSecond: intFromEnv("RATE_LIMIT_RPS", 50), burst: intFromEnv("RATE_LIMIT_BURST", 100) };
}

/** PostgreSQL connections per pool (PG_POOL_MAX). Default 10. */
export function pgPoolMax(): number {
  return Number(process.env.PG_POOL_MAX || 10);
}

/** True while `next build` runs (NEXT_PHASE, set by Next): nothing may open the database then. */
export function isBuildPhase(): boolean {
  return process.env.NEXT_PHASE === "phase-production-build";
}

/** True under `next dev` (NODE_ENV, set by Next). */
export function isDevelopment(): boolean {
  return process.env.NODE_ENV === "development";
}

/** Seconds an authorization's reservation outlives its grant (AUTHORIZATION_TTL_MARGIN_SECONDS). Default 600. */
export function authorizationTtlMarginSeconds(): number {
  return intFromEnv("AUTHORIZATION_TTL_MARGIN_SECONDS", 600);
}

/** BENCH_FLOOR=1: /internal/floor answers (the benchmark's framework floor); 404 otherwise. */
export function benchFloorEnabled(): boolean {
  return process.env.BENCH_FLOOR === "1";
}

/** WEBHOOKS_WORKER=0: this server process does not deliver webhooks (another one does). */
export function webhooksWorkerEnabled(): boolean {
  return process.env.WEBHOOKS_WORKER !== "0";
}

/** EXPORTS_WORKER=0: this server process does not write background exports (another one does). */
export function exportsWorkerEnabled(): boolean {
  return process.env.EXPORTS_WORKER !== "0";
}

/** WEBHOOKS_ALLOW_PRIVATE=1: webhook endpoints may target non-public addresses (lib/alerts/url-guard.ts). Tests only. */
export function webhooksAllowPrivate(): boolean {
  return process.env.WEBHOOKS_ALLOW_PRIVATE === "1";
}

export interface WebhookDeliverySettings {
  retryBaseMs: number;
  retryCapMs: number;
  maxAttempts: number;
  leaseMs: number;
  timeoutMs: number;
  concurrency: number;
  pollMs: number;
}

/** The webhook delivery worker's settings (README "Configuration"); lib/alerts/delivery.ts checks them. */
export function webhookDeliverySettings(): WebhookDeliverySettings {
  return {
    retryBaseMs: intFromEnv("WEBHOOK_RETRY_BASE_MS", 5_000),
    retryCapMs: intFromEnv("WEBHOOK_RETRY_CAP_MS", 6 * 3_600_000),
    maxAttempts: intFromEnv("WEBHOOK_MAX_ATTEMPTS", 15),
    leaseMs: intFromEnv("WEBHOOK_LEASE_MS", 60_000),
    timeoutMs: intFromEnv("WEBHOOK_TIMEOUT_MS", 15_000),
    concurrency: intFromEnv("WEBHOOK_CONCURRENCY", 16),
    pollMs: intFromEnv("WEBHOOK_POLL_MS", 1_000),
  };
}

/**
 * Failed authentications (a bad, unknown or revoked key, a bad session cookie, a failed sign-in) allowed per client
 * address: a token bucket refilled at `perMinute`, holding `burst` (docs/contract.md §6). 0 in either turns it off.
 */
export function authFailureLimit(): { perMinute: number; burst: number } {
  return { perMinute: intFromEnv("AUTH_FAILURES_PER_MINUTE", 10), burst: intFromEnv("AUTH_FAILURE_BURST", 10) };
}

/** The operator as invoices name it (OPERATOR_NAME, OPERATOR_ADDRESS; lines of the address separated by "\n" or "|"). */
export function operatorIdentity(): { name: string; address: string } {
  const name = process.env.OPERATOR_NAME?.trim() || "Callbook operator";
  const address = (process.env.OPERATOR_ADDRESS ?? "")
    .split(/\\n|\n|\|/)
    .map((line) => line.trim())
    .filter(Boolean)
    .join("\n");
  return { name, address };
}

/**
 * How a customer reaches the operator to pay or to be enabled again (OPERATOR_CONTACT: an email, phone or URL, one
 * line): shown in the portal where card payments are not the way, and printed on invoices and their mail. Unset: none.
 */
export function operatorContact(): string | undefined {
  const contact = process.env.OPERATOR_CONTACT?.replace(/\s+/g, " ").trim().slice(0, 200);
  return contact || undefined;
}

/** INVOICES_WORKER=0: this server process does not run the invoice run (another one does). */
export function invoicesWorkerEnabled(): boolean {
  return process.env.INVOICES_WORKER !== "0";
}

/** How often the server's invoice run looks for closed periods and marked days (INVOICE_RUN_INTERVAL_MS). */
export function invoiceRunIntervalMs(): number {
  return intFromEnv("INVOICE_RUN_INTERVAL_MS", 600_000);
}

/** How often each server process judges the quality windows against their thresholds (QUALITY_INTERVAL_MS). */
export function qualityIntervalMs(): number {
  return intFromEnv("QUALITY_INTERVAL_MS", 60_000);
}

/** `smtp://user:pass@host:port` (or smtps://) for the portal's mail; unset: links are printed to the server log. */
export function smtpUrl(): string | undefined {
  const url = process.env.SMTP_URL?.trim();
  return url ? url : undefined;
}

/** The From of the portal's mail. */
export function mailFrom(): string {
  return process.env.MAIL_FROM?.trim() || "Callbook <no-reply@callbook.invalid>";
}

/** `1`: the sign-in page also takes an API key (development and the older e2e specs); off by default. */
export function portalKeySignInEnabled(): boolean {
  return process.env.PORTAL_KEY_SIGN_IN === "1";
}

/**
 * Sign-in, password reset and invitation requests allowed per account (the email, or the inviting person) and per
 * client address: token buckets refilled at `perMinute`, holding `burst`, counted on every attempt (README "People,
 * organizations and roles"). An address is allowed more than one account: an office's people share it. 0 in either
 * turns that limit off.
 */
export function peopleRequestLimits(): {
  account: { perMinute: number; burst: number };
  address: { perMinute: number; burst: number };
} {
  return {
    account: { perMinute: intFromEnv("SIGN_IN_ACCOUNT_PER_MINUTE", 5), burst: intFromEnv("SIGN_IN_ACCOUNT_BURST", 10) },
    address: {
      perMinute: intFromEnv("SIGN_IN_ADDRESS_PER_MINUTE", 30),
      burst: intFromEnv("SIGN_IN_ADDRESS_BURST", 30),
    },
  };
}

/** Where links in background mail (invoices, failed auto-recharges) point: PUBLIC_BASE_URL, else localhost:PORT. */
export function portalBaseUrl(): string {
  return publicBaseUrl() ?? `http://localhost:${port()}`;
}

export interface StripeSettings {
  secretKey: string;
  webhookSecret: string;
  /** STRIPE_API_BASE (tests: a local stand-in of Stripe's API), split into the SDK's host, port and protocol. */
  api?: { host: string; port: number; protocol: "http" | "https" };
}

/**
 * Online payments through Stripe (README "Payments"): STRIPE_SECRET_KEY and STRIPE_WEBHOOK_SECRET, both or neither
 * (neither: no online top-up, no auto-recharge charges). STRIPE_API_BASE points the SDK elsewhere than
 * api.stripe.com.
 */
export function stripeSettings(): StripeSettings | undefined {
  const secretKey = process.env.STRIPE_SECRET_KEY?.trim();
  const webhookSecret = process.env.STRIPE_WEBHOOK_SECRET?.trim();
  if (!secretKey && !webhookSecret) return undefined;
  if (!secretKey || !webhookSecret) throw new Error("STRIPE_SECRET_KEY and STRIPE_WEBHOOK_SECRET are set together");
  const base = process.env.STRIPE_API_BASE?.trim();
  if (!base) return { secretKey, webhookSecret };
  let url: URL;
  try {
    url = new URL(base);
  } catch {
    throw new Error(`STRIPE_API_BASE must be an http(s) URL such as http://127.0.0.1:12111, got "${base}"`);
  }
  if (url.protocol !== "http:" && url.protocol !== "https:")
    throw new Error(`STRIPE_API_BASE must be an http(s) URL such as http://127.0.0.1:12111, got "${base}"`);
  const protocol = url.protocol === "https:" ? "https" : "http";
  return {
    secretKey,
    webhookSecret,
    api: { host: url.hostname, port: Number(url.port || (protocol === "https" ? 443 : 80)), protocol },
  };
}

/** Top-up bounds in major units of the group's currency: TOPUP_MIN (default 5) and TOPUP_MAX (default 10000). */
export function topUpBounds(): { min: number; max: number } {
  const min = Number(process.env.TOPUP_MIN || 5);
  const max = Number(process.env.TOPUP_MAX || 10_000);
  if (!(min > 0 && max >= min)) throw new Error("TOPUP_MIN must be positive and at most TOPUP_MAX");
  return { min, max };
}

export interface HistorySettings {
  /** The ClickHouse HTTP endpoint, without the path (user and password in it, when any, are kept). */
  url: string;
  /** The ClickHouse database of the history tier: the URL's path, "callbook" when it has none. */
  database: string;
  /** A month is moved once it ended at least this many whole months before the current UTC month (default 3). */
  moveAfterMonths: number;
  /** A moved month's ClickHouse partition is dropped once it ended this many whole months ago; undefined: kept. */
  retentionMonths?: number;
  /**
   * A ClickHouse cluster (HISTORY_CLICKHOUSE_CLUSTER, its name in remote_servers) and the HTTP endpoint of every server
   * holding a shard's calls_local (HISTORY_CLICKHOUSE_SERVERS): calls is then a Distributed table over them.
   */
  cluster?: { name: string; serverUrls: string[] };
}

/**
 * The optional history tier (README "History tier", docs/contract.md "History tier"): HISTORY_CLICKHOUSE_URL, an
 * http(s) URL of ClickHouse whose path names the database (http://127.0.0.1:8123/callbook); unset, there is no
 * history tier and nothing reads or moves calls elsewhere. HISTORY_MOVE_AFTER_MONTHS: how old a month must be.
 * HISTORY_RETENTION_MONTHS (unset: history is kept): how old a moved month is when `history retain` drops it; at least
 * HISTORY_MOVE_AFTER_MONTHS, so a month is never due for dropping before it may move.
 */
export function historySettings(): HistorySettings | undefined {
  const raw = process.env.HISTORY_CLICKHOUSE_URL?.trim();
  if (!raw) return undefined;
  const wrong = () =>
    new Error(`HISTORY_CLICKHOUSE_URL must be an http(s) URL such as http://127.0.0.1:8123/callbook, got "${raw}"`);
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw wrong();
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") throw wrong();
  const database = decodeURIComponent(url.pathname.replace(/^\/+|\/+$/g, "")) || "callbook";
  // Quoted nowhere: the name goes into DDL, so it is a plain identifier.
  if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(database))
    throw new Error(`HISTORY_CLICKHOUSE_URL's path must name a database (letters, digits, _), got "${database}"`);
  url.pathname = "/";
  const moveAfterMonths = intFromEnv("HISTORY_MOVE_AFTER_MONTHS", 3);
  if (!Number.isInteger(moveAfterMonths))
    throw new Error(`HISTORY_MOVE_AFTER_MONTHS must be a whole number of months, got "${moveAfterMonths}"`);
  const retention = process.env.HISTORY_RETENTION_MONTHS?.trim();
  const retentionMonths = retention ? Number(retention) : undefined;
  if (retentionMonths !== undefined && !(Number.isInteger(retentionMonths) && retentionMonths >= moveAfterMonths))
    throw new Error(
      `HISTORY_RETENTION_MONTHS must be a whole number of months, at least HISTORY_MOVE_AFTER_MONTHS (${moveAfterMonths}), got "${retention}"`,
    );
  const cluster = historyCluster();
  return {
    url: url.toString().replace(/\/$/, ""),
    database,
    moveAfterMonths,
    retentionMonths,
    ...(cluster ? { cluster } : {}),
  };
}

/**
 * HISTORY_CLICKHOUSE_CLUSTER (a cluster of the servers' remote_servers) with HISTORY_CLICKHOUSE_SERVERS, the comma-
 * separated HTTP endpoints of every server of it: the store creates calls_local on each (no ON CLUSTER: that needs
 * Keeper, docs/contract.md "History tier") and a Distributed calls over them.
 */
function historyCluster(): HistorySettings["cluster"] {
  const name = process.env.HISTORY_CLICKHOUSE_CLUSTER?.trim();
  if (!name) return undefined;
  if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(name))
    throw new Error(`HISTORY_CLICKHOUSE_CLUSTER must name a cluster (letters, digits, _), got "${name}"`);
  const raw = (process.env.HISTORY_CLICKHOUSE_SERVERS ?? "")
    .split(",")
    .map((u) => u.trim())
    .filter(Boolean);
  const serverUrls = raw.map((u) => {
    let parsed: URL | undefined;
    try {
      parsed = new URL(u);
    } catch {
      parsed = undefined;
    }
    if (!parsed || (parsed.protocol !== "http:" && parsed.protocol !== "https:"))
      throw new Error(`HISTORY_CLICKHOUSE_SERVERS must list http(s) URLs, got "${u}"`);
    parsed.pathname = "/";
    return parsed.toString().replace(/\/$/, "");
  });
  if (serverUrls.length === 0)
    throw new Error(
      "HISTORY_CLICKHOUSE_CLUSTER needs HISTORY_CLICKHOUSE_SERVERS: the HTTP endpoint of every server of the cluster",
    );
  return { name, serverUrls };
}
