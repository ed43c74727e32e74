import { sql } from "drizzle-orm";
import {
  bigint,
  boolean,
  char,
  check,
  foreignKey,
  index,
  integer,
  jsonb,
  pgSequence,
  pgTable,
  primaryKey,
  smallint,
  text,
  timestamp,
  unique,
  uniqueIndex,
  type AnyPgColumn,
} from "drizzle-orm/pg-core";

// Money and rates are integer micro-units (1 unit = 1_000_000). `mode: "bigint"` keeps them exact in JS.
const micros = (name: string) => bigint(name, { mode: "bigint" });
const ts = (name: string) => timestamp(name, { withTimezone: true, precision: 3, mode: "date" });

export const billingGroups = pgTable(
  "billing_groups",
  {
    id: text("id").primaryKey(),
    name: text("name").notNull(),
    currency: char("currency", { length: 3 }).notNull(),
    balanceMicros: micros("balance_micros")
      .notNull()
      .default(sql`0`),
    creditLimitMicros: micros("credit_limit_micros")
      .notNull()
      .default(sql`0`),
    accountcode: text("accountcode"),
    disabledByOperator: boolean("disabled_by_operator").notNull().default(false),
    // Derived so it can never disagree with the balance: docs/contract.md §2.
    disabled: boolean("disabled")
      .notNull()
      .generatedAlwaysAs(sql`disabled_by_operator OR balance_micros <= -credit_limit_micros`),
    // Bumped on every change to the group's sell rates; rate caches compare it.
    rateCardVersion: bigint("rate_card_version", { mode: "number" }).notNull().default(0),
    // The member roles that see buy cost and margin (calls:read_cost): a reseller's, set by the operator
    // (`groups cost-roles`); empty for every other customer. docs/contract.md §14.
    costRoles: text("cost_roles")
      .array()
      .notNull()
      .default(sql`'{}'::text[]`),
    createdAt: ts("created_at").notNull().defaultNow(),
    // Invoicing (docs/contract.md §10): the IANA zone whose calendar months are the invoice periods (validated against
    // pg_timezone_names), prepaid or postpaid, and the tax rate in parts per million (200000 = 20 %; exact, no float).
    timeZone: text("time_zone").notNull().default("UTC"),
    billingMode: text("billing_mode", { enum: ["prepaid", "postpaid"] })
      .notNull()
      .default("prepaid"),
    taxRatePpm: integer("tax_rate_ppm").notNull().default(0),
    // Reseller tiers (migration 0027): the account this one buys from; null for a root account, which buys from the
    // operator. Set at creation, never changed (so the tree has no cycles).
    parentId: text("parent_id").references((): AnyPgColumn => billingGroups.id),
    // Billing details (migration 0036): what the invoices this account issues to its customers say of it.
    billingName: text("billing_name").notNull().default(""),
    billingAddress: text("billing_address").notNull().default(""),
    taxId: text("tax_id").notNull().default(""),
  },
  (t) => [
    uniqueIndex("billing_groups_accountcode_key").on(t.accountcode),
    index("billing_groups_parent_idx")
      .on(t.parentId)
      .where(sql`${t.parentId} IS NOT NULL`),
    check("billing_groups_parent_not_self", sql`${t.parentId} <> ${t.id}`),
    check("billing_groups_billing_mode", sql`${t.billingMode} IN ('prepaid', 'postpaid')`),
    check("billing_groups_tax_rate_ppm", sql`${t.taxRatePpm} BETWEEN 0 AND 1000000`),
  ],
);

export const suppliers = pgTable(
  "suppliers",
  {
    id: text("id").primaryKey(),
    name: text("name").notNull(),
    // Gateway name as the switch reports it (FreeSWITCH sip_gateway_name), mapped to this supplier.
    gatewayName: text("gateway_name"),
    rateCardVersion: bigint("rate_card_version", { mode: "number" }).notNull().default(0),
    createdAt: ts("created_at").notNull().defaultNow(),
  },
  (t) => [uniqueIndex("suppliers_gateway_name_key").on(t.gatewayName)],
);

// Dated rate decks: every import adds a deck, history stays. The card in force at time t is the
// owner's deck with the greatest effective_from <= t, so a late CDR is rated with the deck of its start.
export const rateDecks = pgTable(
  "rate_decks",
  {
    id: bigint("id", { mode: "number" }).primaryKey().generatedAlwaysAsIdentity(),
    // Exactly one owner: a billing group (sell deck) or a supplier (buy deck).
    billingGroupId: text("billing_group_id").references(() => billingGroups.id, { onDelete: "cascade" }),
    supplierId: text("supplier_id").references(() => suppliers.id, { onDelete: "cascade" }),
    effectiveFrom: ts("effective_from").notNull(),
    importedAt: ts("imported_at").notNull().defaultNow(),
    // The audit actor of the import (lib/audit AuditActor); null for seeded decks and those imported before.
    importedByType: text("imported_by_type"),
    importedById: text("imported_by_id"),
    importedByLabel: text("imported_by_label"),
  },
  (t) => [
    uniqueIndex("rate_decks_group_from_key").on(t.billingGroupId, t.effectiveFrom),
    uniqueIndex("rate_decks_supplier_from_key").on(t.supplierId, t.effectiveFrom),
    check("rate_decks_one_owner", sql`(${t.billingGroupId} IS NULL) <> (${t.supplierId} IS NULL)`),
  ],
);

// Per-prefix optional fees, micros: a connect fee per billed call and a minimum charge (docs/contract.md §1, README).
const rateColumns = {
  prefix: text("prefix").notNull(),
  rateMicros: micros("rate_micros").notNull(),
  incrementMin: integer("increment_min").notNull(),
  incrementInterval: integer("increment_interval").notNull(),
  description: text("description"),
  connectFeeMicros: micros("connect_fee_micros"),
  minChargeMicros: micros("min_charge_micros"),
};

export const sellRates = pgTable(
  "sell_rates",
  {
    deckId: bigint("deck_id", { mode: "number" })
      .notNull()
      .references(() => rateDecks.id, { onDelete: "cascade" }),
    // The deck's owner, repeated so a group's rates are one index range.
    billingGroupId: text("billing_group_id")
      .notNull()
      .references(() => billingGroups.id, { onDelete: "cascade" }),
    ...rateColumns,
  },
  (t) => [
    primaryKey({ columns: [t.deckId, t.prefix] }),
    index("sell_rates_group_prefix_idx").on(t.billingGroupId, t.prefix),
  ],
);

export const buyRates = pgTable(
  "buy_rates",
  {
    deckId: bigint("deck_id", { mode: "number" })
      .notNull()
      .references(() => rateDecks.id, { onDelete: "cascade" }),
    supplierId: text("supplier_id")
      .notNull()
      .references(() => suppliers.id, { onDelete: "cascade" }),
    ...rateColumns,
  },
  (t) => [
    primaryKey({ columns: [t.deckId, t.prefix] }),
    index("buy_rates_supplier_prefix_idx").on(t.supplierId, t.prefix),
  ],
);

export const apiKeys = pgTable(
  "api_keys",
  {
    id: text("id").primaryKey(),
    // First characters of the secret, safe to show ("ck_live_Ab12...").
    displayPrefix: text("display_prefix").notNull(),
    // SHA-256 of the whole secret, hex. The secret itself is never stored.
    hash: text("hash").notNull(),
    scopes: text("scopes").array().notNull(),
    billingGroupId: text("billing_group_id").references(() => billingGroups.id, { onDelete: "cascade" }),
    name: text("name"),
    revokedAt: ts("revoked_at"),
    createdAt: ts("created_at").notNull().defaultNow(),
    // Refused at authentication from this instant on (docs/contract.md, "Self-service API keys"); null: never.
    expiresAt: ts("expires_at"),
  },
  (t) => [uniqueIndex("api_keys_hash_key").on(t.hash)],
);

// When each key was last used, at most once a minute per key and off the request's transaction (lib/keys/
// last-used.ts). Its own table, not a column of api_keys: every UPDATE of api_keys NOTIFYs callbook_auth and empties
// every principal cache (lib/auth/triggers.ts), which a use of a key must not do.
export const apiKeyUses = pgTable("api_key_uses", {
  keyId: text("key_id")
    .primaryKey()
    .references(() => apiKeys.id, { onDelete: "cascade" }),
  lastUsedAt: ts("last_used_at").notNull(),
});

// Portal sessions, so that signing out ends a session on the server, not only in the browser.
// The cookie carries the id (signed); a session counts while it is not ended, not expired and its key is live.
export const portalSessions = pgTable(
  "portal_sessions",
  {
    id: text("id").primaryKey(),
    keyId: text("key_id")
      .notNull()
      .references(() => apiKeys.id, { onDelete: "cascade" }),
    createdAt: ts("created_at").notNull().defaultNow(),
    expiresAt: ts("expires_at").notNull(),
    endedAt: ts("ended_at"),
  },
  (t) => [index("portal_sessions_key_idx").on(t.keyId)],
);

// Call ids: a plain sequence default, not an identity column: identity on partitioned tables changed in PostgreSQL 17
// (partitions share it, ATTACH checks it) while a sequence default behaves the same on 15 and PGlite (17). Ingest draws
// the ids itself (nextval in the claim statement) so call_uuids can name the call before it is inserted.
export const callsIdSeq = pgSequence("calls_id_seq", {
  startWith: 1,
  increment: 1,
  minValue: 1,
  maxValue: "9223372036854775807",
  cache: 1,
});

// Partitioned by month on start_time (migration 0008; drizzle cannot express PARTITION BY, the SQL holds it):
// calls_pYYYYMM for each UTC month, created by ensure_call_partitions(from, to) (at open for 12 months back to 3
// ahead, and by ingest for any other month it meets), and calls_default for a month without its partition, so no
// call is ever refused. Every unique key holds billing_group_id and start_time (docs/scale-out.md): the uuid's
// uniqueness per group lives in call_uuids below, which a partitioned unique index cannot hold.
export const calls = pgTable(
  "calls",
  {
    id: bigint("id", { mode: "bigint" })
      .notNull()
      .default(sql`nextval('calls_id_seq')`),
    uuid: text("uuid").notNull(),
    billingGroupId: text("billing_group_id")
      .notNull()
      .references(() => billingGroups.id),
    direction: text("direction", { enum: ["inbound", "outbound"] }).notNull(),
    fromNumber: text("from_number").notNull(),
    toNumber: text("to_number").notNull(),
    startTime: ts("start_time").notNull(),
    answerTime: ts("answer_time"),
    endTime: ts("end_time").notNull(),
    duration: integer("duration").notNull(),
    billDuration: integer("bill_duration").notNull(),
    pddMs: integer("pdd_ms"),
    hangupCause: text("hangup_cause"),
    q850Cause: smallint("q850_cause"),
    readCodec: text("read_codec"),
    writeCodec: text("write_codec"),
    recordingUrl: text("recording_url"),
    accountcode: text("accountcode"),
    networkAddr: text("network_addr"),
    currency: char("currency", { length: 3 }).notNull(),
    // false: no sell rate matched; stored with price 0, not debited, re-ratable.
    rated: boolean("rated").notNull(),
    matchedPrefix: text("matched_prefix"),
    sellRateMicros: micros("sell_rate_micros"),
    incrementMin: integer("increment_min"),
    incrementInterval: integer("increment_interval"),
    priceMicros: micros("price_micros").notNull(),
    supplierId: text("supplier_id").references(() => suppliers.id),
    buyRateMicros: micros("buy_rate_micros"),
    buyBillDuration: integer("buy_bill_duration"),
    buyCostMicros: micros("buy_cost_micros"),
    // The decks that rated the call and the matched rates' fees (null: none), so call detail can show
    // each part of a price: connect fee + per-minute part, or the minimum charge.
    rateDeckId: bigint("rate_deck_id", { mode: "number" }),
    connectFeeMicros: micros("connect_fee_micros"),
    minChargeMicros: micros("min_charge_micros"),
    buyRateDeckId: bigint("buy_rate_deck_id", { mode: "number" }),
    buyConnectFeeMicros: micros("buy_connect_fee_micros"),
    buyMinChargeMicros: micros("buy_min_charge_micros"),
    createdAt: ts("created_at").notNull().defaultNow(),
  },
  (t) => [
    // Keyset pagination of a group (bound keys), read backwards for start_time DESC, id DESC; rerate's batches walk it
    // forwards; ingest's replay lookup and rerate's update find one call by it. Holds the partition key, as a
    // partitioned unique key must.
    primaryKey({ name: "calls_pkey", columns: [t.billingGroupId, t.startTime, t.id] }),
    // One call by id (GET /v1/calls/{id}, the listing's `id` filter). Ids only grow, so this index appends at its
    // right edge: the cheapest one to keep up.
    index("calls_id_idx").on(t.id),
    // Keyset pagination for platform keys (all groups).
    index("calls_start_id_idx").on(t.startTime.desc().nullsFirst(), t.id.desc().nullsFirst()),
    // The listing's and usage's hangupCause filter.
    index("calls_group_hangup_start_id_idx").on(
      t.billingGroupId,
      sql`upper(${t.hangupCause})`,
      t.startTime.desc().nullsFirst(),
      t.id.desc().nullsFirst(),
    ),
    // The listing's `to` (substring) and `toPrefix` filters.
    index("calls_to_trgm_idx").using("gin", sql`${t.toNumber} gin_trgm_ops`),
    // rerate: the unrated calls (few; an index entry only for them).
    index("calls_unrated_idx")
      .on(t.billingGroupId)
      .where(sql`NOT ${t.rated}`),
  ],
);

// A call's uuid is unique per billing group (idempotent ingest): the claim ingest writes first, in the statement that
// inserts the call, with ON CONFLICT DO NOTHING; only claimed rows are inserted into calls. Not partitioned, so the key
// needs no start_time and a replay with another startTime still finds the stored call (409). start_time and call_id
// name the stored call by its primary key (one partition).
export const callUuids = pgTable(
  "call_uuids",
  {
    billingGroupId: text("billing_group_id").notNull(),
    uuid: text("uuid").notNull(),
    startTime: ts("start_time").notNull(),
    callId: bigint("call_id", { mode: "bigint" }).notNull(),
  },
  (t) => [
    primaryKey({ name: "call_uuids_pkey", columns: [t.billingGroupId, t.uuid] }),
    // The `uuid` filter of GET /v1/calls, its export and GET /v1/usage (migration 0009): every group's call with that
    // uuid for a platform key (not unique: two groups may hold one uuid); a bound key's search may use either index.
    index("call_uuids_uuid_idx").on(t.uuid),
  ],
);

// What each tier above a call's account pays its own parent for the call, rated at that tier's sell deck (issue 32,
// migration 0027): one row per call and ancestor, depth 1 = the account's parent. Keyed like calls, so it distributes
// with them; call_tier_charges_tier_idx reads one tier's charges over time.
export const callTierCharges = pgTable(
  "call_tier_charges",
  {
    billingGroupId: text("billing_group_id").notNull(),
    startTime: ts("start_time").notNull(),
    callId: bigint("call_id", { mode: "bigint" }).notNull(),
    tierGroupId: text("tier_group_id")
      .notNull()
      .references(() => billingGroups.id),
    depth: smallint("depth").notNull(),
    rated: boolean("rated").notNull(),
    matchedPrefix: text("matched_prefix"),
    rateMicros: micros("rate_micros"),
    billDuration: integer("bill_duration").notNull(),
    priceMicros: micros("price_micros").notNull(),
    rateDeckId: bigint("rate_deck_id", { mode: "number" }),
  },
  (t) => [
    primaryKey({ name: "call_tier_charges_pkey", columns: [t.billingGroupId, t.startTime, t.callId, t.tierGroupId] }),
    index("call_tier_charges_tier_idx").on(t.tierGroupId, t.startTime),
  ],
);

export const ledgerEntries = pgTable(
  "ledger_entries",
  {
    id: bigint("id", { mode: "bigint" }).notNull().generatedAlwaysAsIdentity(),
    billingGroupId: text("billing_group_id")
      .notNull()
      .references(() => billingGroups.id, { onDelete: "cascade" }),
    kind: text("kind", { enum: ["opening", "topup", "debit", "adjustment"] }).notNull(),
    // Signed: top-ups positive, debits negative. Sum over a group equals its balance.
    amountMicros: micros("amount_micros").notNull(),
    callId: bigint("call_id", { mode: "bigint" }),
    description: text("description"),
    createdAt: ts("created_at").notNull().defaultNow(),
  },
  (t) => [
    // Unique keys lead with the group, so the ledger distributes with calls by billing_group_id (docs/scale-out.md).
    primaryKey({ name: "ledger_entries_pkey", columns: [t.billingGroupId, t.id] }),
    index("ledger_group_idx").on(t.billingGroupId, t.createdAt),
    // One debit per call; re-rating (rerate --since) adds 'adjustment' entries for the same call. Call ids are
    // unique on their own: the group only makes the key distributable.
    uniqueIndex("ledger_call_debit_key")
      .on(t.billingGroupId, t.callId)
      .where(sql`${t.kind} = 'debit'`),
  ],
);

// Usage rollups of GET /v1/usage, kept exact by statement-level triggers on calls (lib/usage/triggers.ts) in the
// transaction that inserts or re-rates the calls. Three grains, so that a 90-day report reads thousands of rows,
// not one per call (lib/usage/summarize-usage.ts says which report reads which):
// - hourly: (group, UTC hour, direction, hangup cause, currency) for day/month/direction/hangupCause/account;
// - quarter: the same per 15 minutes, read only for the hours a :30/:45 zone's midnight cuts (Asia/Kolkata);
// - daily: (group, UTC day, direction, prefix, supplier, currency) for destination/supplier.
const usageFigures = {
  calls: bigint("calls", { mode: "number" }).notNull(),
  answeredCalls: bigint("answered_calls", { mode: "number" }).notNull(),
  unratedCalls: bigint("unrated_calls", { mode: "number" }).notNull(),
  billedSeconds: bigint("billed_seconds", { mode: "number" }).notNull(),
  priceMicros: micros("price_micros").notNull(),
  // Over the calls that have a buy cost only, so margin is exactly the sum of the calls' margins.
  buyCostMicros: micros("buy_cost_micros").notNull(),
  marginMicros: micros("margin_micros").notNull(),
};
const usageTime = (name: string) => timestamp(name, { withTimezone: true, mode: "date" }).notNull();
const usageDirection = () => text("direction", { enum: ["inbound", "outbound"] }).notNull();

// hourly and quarter differ only in grain: the same columns (after the group and the time) and the same keys.
const usageByCause = {
  direction: usageDirection(),
  // upper(calls.hangup_cause): the calls filter is case-insensitive.
  hangupCause: text("hangup_cause"),
  currency: char("currency", { length: 3 }).notNull(),
  ...usageFigures,
};
type UsageByCauseColumns = { [K in "billingGroupId" | "direction" | "hangupCause" | "currency"]: AnyPgColumn };
const usageByCauseKeys = (table: string, time: AnyPgColumn, t: UsageByCauseColumns) => [
  unique(`${table}_key`).on(t.billingGroupId, time, t.direction, t.hangupCause, t.currency).nullsNotDistinct(),
  index(`${table}_${time.name}_idx`).on(time),
];

export const usageHourly = pgTable(
  "usage_hourly",
  { billingGroupId: text("billing_group_id").notNull(), hour: usageTime("hour"), ...usageByCause },
  (t) => usageByCauseKeys("usage_hourly", t.hour, t),
);

export const usageQuarter = pgTable(
  "usage_quarter",
  { billingGroupId: text("billing_group_id").notNull(), quarter: usageTime("quarter"), ...usageByCause },
  (t) => usageByCauseKeys("usage_quarter", t.quarter, t),
);

export const usageDaily = pgTable(
  "usage_daily",
  {
    billingGroupId: text("billing_group_id").notNull(),
    day: usageTime("day"),
    direction: usageDirection(),
    matchedPrefix: text("matched_prefix"),
    supplierId: text("supplier_id"),
    currency: char("currency", { length: 3 }).notNull(),
    ...usageFigures,
  },
  (t) => [
    unique("usage_daily_key")
      .on(t.billingGroupId, t.day, t.direction, t.matchedPrefix, t.supplierId, t.currency)
      .nullsNotDistinct(),
    index("usage_daily_day_idx").on(t.day),
  ],
);

// Balance alerts (README "Prepaid authorizations and balance alerts"): low-balance thresholds per group. `crossed` is
// true while the balance is at or below the threshold; a trigger on billing_groups (lib/alerts/triggers.ts) flips it
// and writes the event in the transaction that moved the balance, so each crossing fires once (no repeat while the
// balance stays below, none on an unrelated update).
export const balanceAlertThresholds = pgTable(
  "balance_alert_thresholds",
  {
    billingGroupId: text("billing_group_id")
      .notNull()
      .references(() => billingGroups.id, { onDelete: "cascade" }),
    thresholdMicros: micros("threshold_micros").notNull(),
    crossed: boolean("crossed").notNull(),
    createdAt: ts("created_at").notNull().defaultNow(),
  },
  (t) => [primaryKey({ columns: [t.billingGroupId, t.thresholdMicros] })],
);

// Quality alert thresholds of an account: per dialled-number prefix ('' for the whole account), the limits of ASR
// (basis points), ACD and PDD over a sliding window of outbound calls, each with the state it was last seen in
// (lib/quality/evaluate-quality.ts flips it, once per crossing; migration 0025).
export const qualityThresholds = pgTable(
  "quality_thresholds",
  {
    billingGroupId: text("billing_group_id")
      .notNull()
      .references(() => billingGroups.id, { onDelete: "cascade" }),
    prefix: text("prefix").notNull().default(""),
    windowMinutes: integer("window_minutes").notNull(),
    minCalls: integer("min_calls").notNull(),
    asrMinBp: integer("asr_min_bp"),
    acdMinSeconds: integer("acd_min_seconds"),
    pddMaxMs: integer("pdd_max_ms"),
    asrLow: boolean("asr_low").notNull().default(false),
    acdLow: boolean("acd_low").notNull().default(false),
    pddHigh: boolean("pdd_high").notNull().default(false),
    evaluatedAt: ts("evaluated_at"),
    createdAt: ts("created_at").notNull().defaultNow(),
  },
  (t) => [primaryKey({ columns: [t.billingGroupId, t.prefix] })],
);

// Where events are POSTed (Standard Webhooks). No group: every group's events.
export const webhookEndpoints = pgTable("webhook_endpoints", {
  id: text("id").primaryKey(),
  url: text("url").notNull(),
  billingGroupId: text("billing_group_id").references(() => billingGroups.id, { onDelete: "cascade" }),
  description: text("description"),
  createdAt: ts("created_at").notNull().defaultNow(),
  // The event types it receives (`*`: all); disabled: no new deliveries, pending ones wait (migration 0018).
  eventTypes: text("event_types")
    .array()
    .notNull()
    .default(sql`'{*}'`),
  disabledAt: ts("disabled_at"),
});

// Signing secrets (`whsec_...`). Several live at once during a rotation: every unexpired one signs.
export const webhookSecrets = pgTable(
  "webhook_secrets",
  {
    id: bigint("id", { mode: "bigint" }).primaryKey().generatedAlwaysAsIdentity(),
    endpointId: text("endpoint_id")
      .notNull()
      .references(() => webhookEndpoints.id, { onDelete: "cascade" }),
    secret: text("secret").notNull(),
    createdAt: ts("created_at").notNull().defaultNow(),
    expiresAt: ts("expires_at"),
  },
  (t) => [index("webhook_secrets_endpoint_idx").on(t.endpointId)],
);

// The outbox: one event per crossing, written by the trigger in the balance update's transaction. `body` is the exact
// JSON sent (signed bytes stay the same across retries); `id` is the `webhook-id` receivers dedupe on.
export const webhookEvents = pgTable(
  "webhook_events",
  {
    id: text("id").primaryKey(),
    // Commit-independent creation order (several events of one update share a timestamp).
    seq: bigint("seq", { mode: "bigint" }).notNull().generatedAlwaysAsIdentity(),
    type: text("type").notNull(),
    // Null for a test event of a platform endpoint.
    billingGroupId: text("billing_group_id"),
    body: text("body").notNull(),
    createdAt: ts("created_at").notNull().defaultNow(),
  },
  (t) => [index("webhook_events_group_idx").on(t.billingGroupId, t.seq)],
);

// One row per (event, endpoint): attempts, the lease of the worker delivering it, the outcome.
export const webhookDeliveries = pgTable(
  "webhook_deliveries",
  {
    eventId: text("event_id")
      .notNull()
      .references(() => webhookEvents.id, { onDelete: "cascade" }),
    endpointId: text("endpoint_id")
      .notNull()
      .references(() => webhookEndpoints.id, { onDelete: "cascade" }),
    attempts: integer("attempts").notNull().default(0),
    nextAttemptAt: ts("next_attempt_at").notNull().defaultNow(),
    // A worker's claim; another process takes the delivery over only after it lapses (the worker died).
    leasedUntil: ts("leased_until"),
    deliveredAt: ts("delivered_at"),
    failedAt: ts("failed_at"),
    lastStatus: integer("last_status"),
    lastError: text("last_error"),
    // `attempts` at the last resend: the retries' count and backoff start again from it.
    retryBase: integer("retry_base").notNull().default(0),
  },
  (t) => [
    primaryKey({ columns: [t.eventId, t.endpointId] }),
    index("webhook_deliveries_due_idx")
      .on(t.nextAttemptAt)
      .where(sql`delivered_at IS NULL AND failed_at IS NULL`),
    index("webhook_deliveries_endpoint_idx").on(t.endpointId),
  ],
);

// Every attempt of a delivery, for the delivery log (migration 0018).
export const webhookDeliveryAttempts = pgTable(
  "webhook_delivery_attempts",
  {
    id: bigint("id", { mode: "bigint" }).primaryKey().generatedAlwaysAsIdentity(),
    eventId: text("event_id").notNull(),
    endpointId: text("endpoint_id").notNull(),
    attemptedAt: ts("attempted_at").notNull(),
    durationMs: integer("duration_ms").notNull(),
    status: integer("status"),
    error: text("error"),
    responseExcerpt: text("response_excerpt"),
  },
  (t) => [
    foreignKey({
      name: "webhook_delivery_attempts_delivery_fk",
      columns: [t.eventId, t.endpointId],
      foreignColumns: [webhookDeliveries.eventId, webhookDeliveries.endpointId],
    }).onDelete("cascade"),
    index("webhook_delivery_attempts_delivery_idx").on(t.endpointId, t.eventId, t.id),
  ],
);

// Prepaid authorizations (README "Prepaid authorizations and balance alerts"): a reservation held for a call in
// progress. Active while not settled and not expired; available = balance + credit limit - active reservations. The
// call's CDR (same group and uuid) settles it (trigger on calls: lib/authorizations/triggers.ts): the debit is the
// ingest's as always, the reservation simply stops counting.
export const authorizations = pgTable(
  "authorizations",
  {
    billingGroupId: text("billing_group_id")
      .notNull()
      .references(() => billingGroups.id, { onDelete: "cascade" }),
    uuid: text("uuid").notNull(),
    destination: text("destination").notNull(),
    fromNumber: text("from_number"),
    matchedPrefix: text("matched_prefix").notNull(),
    sellRateMicros: micros("sell_rate_micros").notNull(),
    incrementMin: integer("increment_min").notNull(),
    incrementInterval: integer("increment_interval").notNull(),
    maxDurationSeconds: integer("max_duration_seconds").notNull(),
    reservedMicros: micros("reserved_micros").notNull(),
    createdAt: ts("created_at").notNull().defaultNow(),
    expiresAt: ts("expires_at").notNull(),
    settledAt: ts("settled_at"),
    callId: bigint("call_id", { mode: "bigint" }),
  },
  (t) => [
    primaryKey({ columns: [t.billingGroupId, t.uuid] }),
    index("authorizations_active_idx")
      .on(t.billingGroupId, t.expiresAt)
      .where(sql`settled_at IS NULL`),
    // The calls-per-second and velocity rules count a group's authorizations in a sliding window (migration 0024).
    index("authorizations_created_idx").on(t.billingGroupId, t.createdAt),
  ],
);

// Reservations at every tier (migration 0034, docs/contract.md "Reseller tiers"): what an authorization of an account
// with ancestors holds at each ancestor (its price of the call at its own deck) while the authorization is open.
export const authorizationTierHolds = pgTable(
  "authorization_tier_holds",
  {
    tierGroupId: text("tier_group_id")
      .notNull()
      .references(() => billingGroups.id, { onDelete: "cascade" }),
    billingGroupId: text("billing_group_id").notNull(),
    uuid: text("uuid").notNull(),
    depth: smallint("depth").notNull(),
    reservedMicros: micros("reserved_micros").notNull(),
    expiresAt: ts("expires_at").notNull(),
  },
  (t) => [
    primaryKey({ name: "authorization_tier_holds_pkey", columns: [t.billingGroupId, t.uuid, t.tierGroupId] }),
    foreignKey({
      name: "authorization_tier_holds_authorization_fk",
      columns: [t.billingGroupId, t.uuid],
      foreignColumns: [authorizations.billingGroupId, authorizations.uuid],
    }).onDelete("cascade"),
    index("authorization_tier_holds_tier_idx").on(t.tierGroupId, t.expiresAt),
  ],
);

// Real-time limits (lib/limits, docs/contract.md "Limits"): the operator's layer and the customer's (which only
// tightens), each a JSON document of lib/limits/schemas.ts; POST /v1/authorizations reads the row with the group's lock.
export const accountLimits = pgTable("account_limits", {
  billingGroupId: text("billing_group_id")
    .primaryKey()
    .references(() => billingGroups.id, { onDelete: "cascade" }),
  operator: jsonb("operator").notNull().default({}),
  // Each reseller's layer on the account, by the reseller's account id (migration 0041; one shared layer in 0038).
  providers: jsonb("providers").notNull().default({}),
  customer: jsonb("customer").notNull().default({}),
  updatedAt: ts("updated_at").notNull().defaultNow(),
  // The limits whose crossing was told (limit.hit), until an authorization is admitted again (migration 0026).
  hit: text("hit")
    .array()
    .notNull()
    .default(sql`'{}'`),
});

// Velocity counters (migration 0031, docs/contract.md "Limits"): what the velocity rules count, written and read
// under the group's row lock by POST /v1/authorizations, so a check reads at most the rule's maximum of rows.
export const velocityDestinations = pgTable(
  "velocity_destinations",
  {
    billingGroupId: text("billing_group_id")
      .notNull()
      .references(() => billingGroups.id, { onDelete: "cascade" }),
    digits: text("digits").notNull(),
    lastSeen: ts("last_seen").notNull(),
  },
  (t) => [
    primaryKey({ columns: [t.billingGroupId, t.digits] }),
    index("velocity_destinations_seen_idx").on(t.billingGroupId, t.lastSeen),
  ],
);

export const velocityPrefixBuckets = pgTable(
  "velocity_prefix_buckets",
  {
    billingGroupId: text("billing_group_id")
      .notNull()
      .references(() => billingGroups.id, { onDelete: "cascade" }),
    prefix: text("prefix").notNull(),
    // Unix seconds: one-second buckets.
    bucket: bigint("bucket", { mode: "number" }).notNull(),
    calls: integer("calls").notNull(),
  },
  (t) => [primaryKey({ columns: [t.billingGroupId, t.prefix, t.bucket] })],
);

// Authorizations a limit refused (GET /v1/authorizations/refusals): nothing was reserved for them.
export const authorizationRefusals = pgTable(
  "authorization_refusals",
  {
    id: bigint("id", { mode: "bigint" }).primaryKey().generatedAlwaysAsIdentity(),
    billingGroupId: text("billing_group_id")
      .notNull()
      .references(() => billingGroups.id, { onDelete: "cascade" }),
    uuid: text("uuid").notNull(),
    destination: text("destination").notNull(),
    code: text("code").notNull(),
    limitName: text("limit_name").notNull(),
    limitValue: text("limit_value").notNull(),
    currentValue: text("current_value").notNull(),
    detail: text("detail").notNull(),
    createdAt: ts("created_at").notNull().defaultNow(),
  },
  (t) => [
    index("authorization_refusals_group_idx").on(t.billingGroupId, t.createdAt.desc(), t.id.desc()),
    index("authorization_refusals_created_idx").on(t.createdAt.desc(), t.id.desc()),
  ],
);

// The audit log (lib/audit, docs/contract.md "Audit events"): one row per state change, written in the transaction of
// the change. Append-only: a trigger refuses UPDATE, DELETE and TRUNCATE (lib/audit/triggers.ts, migration 0011). No
// foreign keys: an event outlives the group, key or person it names. Listed newest first by keyset on
// (occurred_at, id), per group (audit_events_group_idx) or across groups (audit_events_occurred_idx).
export const auditEvents = pgTable(
  "audit_events",
  {
    id: bigint("id", { mode: "bigint" }).primaryKey().generatedAlwaysAsIdentity(),
    occurredAt: ts("occurred_at").notNull().defaultNow(),
    // The organization the change concerns; null: the platform's own.
    billingGroupId: text("billing_group_id"),
    actorType: text("actor_type").notNull(),
    actorId: text("actor_id"),
    actorLabel: text("actor_label"),
    action: text("action").notNull(),
    targetType: text("target_type").notNull(),
    targetId: text("target_id"),
    // The client's address as the HTTP edge resolved it (lib/auth/request-origin.ts clientAddress); null off HTTP.
    address: text("address"),
    before: jsonb("before"),
    after: jsonb("after"),
  },
  (t) => [
    check("audit_events_actor_type_check", sql`${t.actorType} IN ('api_key', 'user', 'cli', 'system')`),
    index("audit_events_group_idx").on(t.billingGroupId, t.occurredAt.desc(), t.id.desc()),
    index("audit_events_occurred_idx").on(t.occurredAt.desc(), t.id.desc()),
  ],
);

// Invoices and credit/debit notes (docs/contract.md §10, lib/invoices): issued once, never changed (a trigger refuses
// every UPDATE and DELETE: lib/invoices/triggers.ts). An invoice covers one calendar month of its group's zone
// [period_start, period_end); a note corrects an issued invoice (invoice_id) after a late or re-rated call of its
// period. The issuer, customer, zone, mode, tax rate and currency are copied at issue, so the document never changes.
export const invoices = pgTable(
  "invoices",
  {
    id: text("id").primaryKey(),
    // Listing order (GET /v1/invoices pages by issued_at, seq); not the document number, which is gapless.
    seq: bigint("seq", { mode: "bigint" }).notNull().generatedAlwaysAsIdentity(),
    kind: text("kind", { enum: ["invoice", "credit_note", "debit_note"] }).notNull(),
    // Gapless per series (document_counters), drawn in the issuing transaction.
    number: text("number").notNull(),
    billingGroupId: text("billing_group_id")
      .notNull()
      .references(() => billingGroups.id),
    invoiceId: text("invoice_id").references((): AnyPgColumn => invoices.id),
    periodStart: ts("period_start").notNull(),
    periodEnd: ts("period_end").notNull(),
    timeZone: text("time_zone").notNull(),
    billingMode: text("billing_mode", { enum: ["prepaid", "postpaid"] }).notNull(),
    taxRatePpm: integer("tax_rate_ppm").notNull(),
    currency: char("currency", { length: 3 }).notNull(),
    customerName: text("customer_name").notNull(),
    issuerName: text("issuer_name").notNull(),
    issuerAddress: text("issuer_address").notNull(),
    subtotalMicros: micros("subtotal_micros").notNull(),
    taxMicros: micros("tax_micros").notNull(),
    totalMicros: micros("total_micros").notNull(),
    // The balance over the period (ledger entries by their time); null on notes.
    openingBalanceMicros: micros("opening_balance_micros"),
    topupsMicros: micros("topups_micros"),
    adjustmentsMicros: micros("adjustments_micros"),
    debitsMicros: micros("debits_micros"),
    closingBalanceMicros: micros("closing_balance_micros"),
    issuedAt: ts("issued_at").notNull().defaultNow(),
    // The sub-minor-unit remainder carried to the group's next document (its rounding line), migration 0022.
    remainderMicros: micros("remainder_micros").notNull().default(0n),
  },
  (t) => [
    uniqueIndex("invoices_number_key").on(t.number),
    // One invoice per group and period: a second run (or process) cannot issue it twice.
    uniqueIndex("invoices_group_period_key")
      .on(t.billingGroupId, t.periodStart)
      .where(sql`${t.kind} = 'invoice'`),
    // GET /v1/invoices: newest first per group, and for platform keys.
    index("invoices_group_issued_idx").on(t.billingGroupId, t.issuedAt, t.seq),
    index("invoices_issued_idx").on(t.issuedAt, t.seq),
    index("invoices_invoice_idx").on(t.invoiceId),
    check("invoices_note_refers", sql`(${t.kind} = 'invoice') = (${t.invoiceId} IS NULL)`),
  ],
);

// The lines of a document: usage per direction and destination name (the rate deck's description; prefix is set when
// one prefix makes the line, null for several, unrated calls and ledger lines), a rounding line (both part of the
// subtotal, in minor units), and on an invoice the period's top-ups and adjustments as ledger lines (not part of it).
export const invoiceLines = pgTable(
  "invoice_lines",
  {
    invoiceId: text("invoice_id")
      .notNull()
      .references(() => invoices.id),
    lineNo: integer("line_no").notNull(),
    kind: text("kind", { enum: ["usage", "rounding", "topup", "adjustment"] }).notNull(),
    direction: text("direction", { enum: ["inbound", "outbound"] }),
    prefix: text("prefix"),
    description: text("description").notNull(),
    calls: bigint("calls", { mode: "number" }).notNull(),
    billedSeconds: bigint("billed_seconds", { mode: "number" }).notNull(),
    amountMicros: micros("amount_micros").notNull(),
    // A usage line's exact sum of prices (its amount is that rounded to the minor unit); null before migration 0022.
    exactMicros: micros("exact_micros"),
    occurredAt: ts("occurred_at"),
  },
  (t) => [primaryKey({ columns: [t.invoiceId, t.lineNo] })],
);

// Gapless document numbers: one row per series, incremented in the transaction that issues the document (a sequence
// would leave gaps on rollback).
export const documentCounters = pgTable("document_counters", {
  series: text("series").primaryKey(),
  lastNumber: bigint("last_number", { mode: "number" }).notNull(),
});

// Calls written (ingest, re-rating, delete) in months that may be closed: a statement-level trigger on calls appends
// (group, UTC day) here; the invoice run rechecks the invoices of those days and issues notes (lib/invoices).
export const invoiceRecheckMarks = pgTable("invoice_recheck_marks", {
  id: bigint("id", { mode: "bigint" }).primaryKey().generatedAlwaysAsIdentity(),
  billingGroupId: text("billing_group_id").notNull(),
  day: ts("day").notNull(),
});

// The end of each group's last invoiced period, written in the issuing transaction: the re-check trigger on calls marks
// a call that started before it (or before the running month of the group's zone), migration 0021.
export const invoicedUntil = pgTable("invoiced_until", {
  billingGroupId: text("billing_group_id")
    .primaryKey()
    .references(() => billingGroups.id),
  periodEnd: ts("period_end").notNull(),
});

// The history tier's moves of UTC months from calls to ClickHouse (lib/history/move-month.ts, migration 0031): the
// step each month reached (copying, copied, verified, removed; dropped by retention, migration 0030) and the totals
// both stores agreed on.
export const historyMoves = pgTable(
  "history_moves",
  {
    month: ts("month").primaryKey(),
    state: text("state", { enum: ["copying", "copied", "verified", "removed", "dropped"] }).notNull(),
    copyAttempts: integer("copy_attempts").notNull().default(0),
    copiedCalls: bigint("copied_calls", { mode: "bigint" }),
    calls: bigint("calls", { mode: "bigint" }),
    priceMicros: micros("price_micros"),
    buyCostMicros: micros("buy_cost_micros"),
    billedSeconds: bigint("billed_seconds", { mode: "bigint" }),
    startedAt: ts("started_at").notNull().defaultNow(),
    copiedAt: ts("copied_at"),
    verifiedAt: ts("verified_at"),
    removedAt: ts("removed_at"),
    droppedAt: ts("dropped_at"),
  },
  (t) => [
    check("history_moves_state", sql`${t.state} IN ('copying', 'copied', 'verified', 'removed', 'dropped')`),
    check("history_moves_month_start", sql`${t.month} = date_trunc('month', ${t.month}, 'UTC')`),
  ],
);

// Stored answers of POSTs sent with an Idempotency-Key (lib/idempotency): one per (API key, idempotency key), kept
// 24 hours. `status` is null while the first request runs; `lockedUntil` bounds that (a dead process's lock lapses).
export const idempotencyKeys = pgTable(
  "idempotency_keys",
  {
    keyId: text("key_id").notNull(),
    idempotencyKey: text("idempotency_key").notNull(),
    requestHash: text("request_hash").notNull(),
    status: integer("status"),
    responseHeaders: text("response_headers"),
    responseBody: text("response_body"),
    lockedUntil: ts("locked_until").notNull(),
    createdAt: ts("created_at").notNull().defaultNow(),
  },
  (t) => [
    primaryKey({ name: "idempotency_keys_pkey", columns: [t.keyId, t.idempotencyKey] }),
    index("idempotency_keys_created_idx").on(t.createdAt),
  ],
);

// Background CSV exports (lib/exports): a job claimed under a lease, its file in export_chunks (one row per page).
export const exports = pgTable(
  "exports",
  {
    id: text("id").primaryKey(),
    keyId: text("key_id").notNull(),
    billingGroupId: text("billing_group_id"),
    withCost: boolean("with_cost").notNull(),
    filters: text("filters").notNull(),
    status: text("status").notNull().default("queued"),
    rowsEstimated: bigint("rows_estimated", { mode: "number" }),
    rowsDone: bigint("rows_done", { mode: "number" }).notNull().default(0),
    chunks: integer("chunks").notNull().default(0),
    bytes: bigint("bytes", { mode: "number" }).notNull().default(0),
    cursor: text("cursor"),
    attempts: integer("attempts").notNull().default(0),
    leasedUntil: ts("leased_until"),
    error: text("error"),
    createdAt: ts("created_at").notNull().defaultNow(),
    completedAt: ts("completed_at"),
    expiresAt: ts("expires_at").notNull(),
  },
  (t) => [
    check("exports_status_check", sql`${t.status} IN ('queued', 'running', 'succeeded', 'failed')`),
    index("exports_key_idx").on(t.keyId, t.createdAt),
    index("exports_pending_idx")
      .on(t.createdAt)
      .where(sql`status IN ('queued', 'running')`),
  ],
);

export const exportChunks = pgTable(
  "export_chunks",
  {
    exportId: text("export_id")
      .notNull()
      .references(() => exports.id, { onDelete: "cascade" }),
    seq: integer("seq").notNull(),
    body: text("body").notNull(),
  },
  (t) => [primaryKey({ name: "export_chunks_pkey", columns: [t.exportId, t.seq] })],
);

// People (lib/people, README "People, organizations and roles"): better-auth's tables, its field names as the JS
// keys (its Drizzle adapter maps them), snake_case columns like the rest. An organization is a billing group's
// (billing_group_id) or the platform's (platform: the operator's staff, who see every group).
export const users = pgTable("users", {
  id: text("id").primaryKey(),
  name: text("name").notNull(),
  email: text("email").notNull().unique(),
  emailVerified: boolean("email_verified").notNull().default(false),
  image: text("image"),
  // better-auth's twoFactor plugin (migration 0015): a confirmed TOTP secret.
  twoFactorEnabled: boolean("two_factor_enabled").notNull().default(false),
  createdAt: ts("created_at").notNull().defaultNow(),
  updatedAt: ts("updated_at").notNull().defaultNow(),
});

export const authSessions = pgTable(
  "auth_sessions",
  {
    id: text("id").primaryKey(),
    token: text("token").notNull().unique(),
    userId: text("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    expiresAt: ts("expires_at").notNull(),
    ipAddress: text("ip_address"),
    userAgent: text("user_agent"),
    activeOrganizationId: text("active_organization_id"),
    createdAt: ts("created_at").notNull().defaultNow(),
    updatedAt: ts("updated_at").notNull().defaultNow(),
  },
  (t) => [index("auth_sessions_user_idx").on(t.userId)],
);

export const authAccounts = pgTable(
  "auth_accounts",
  {
    id: text("id").primaryKey(),
    accountId: text("account_id").notNull(),
    providerId: text("provider_id").notNull(),
    userId: text("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    accessToken: text("access_token"),
    refreshToken: text("refresh_token"),
    idToken: text("id_token"),
    accessTokenExpiresAt: ts("access_token_expires_at"),
    refreshTokenExpiresAt: ts("refresh_token_expires_at"),
    scope: text("scope"),
    // argon2id PHC string (lib/people/password.ts).
    password: text("password"),
    createdAt: ts("created_at").notNull().defaultNow(),
    updatedAt: ts("updated_at").notNull().defaultNow(),
  },
  (t) => [index("auth_accounts_user_idx").on(t.userId)],
);

export const authVerifications = pgTable(
  "auth_verifications",
  {
    id: text("id").primaryKey(),
    identifier: text("identifier").notNull(),
    value: text("value").notNull(),
    expiresAt: ts("expires_at").notNull(),
    createdAt: ts("created_at").notNull().defaultNow(),
    updatedAt: ts("updated_at").notNull().defaultNow(),
  },
  (t) => [index("auth_verifications_identifier_idx").on(t.identifier)],
);

export const organizations = pgTable(
  "organizations",
  {
    id: text("id").primaryKey(),
    name: text("name").notNull(),
    slug: text("slug").notNull().unique(),
    logo: text("logo"),
    metadata: text("metadata"),
    billingGroupId: text("billing_group_id").references(() => billingGroups.id, { onDelete: "cascade" }),
    platform: boolean("platform").notNull().default(false),
    /** Members without a second factor reach only the Security page (lib/people/require-two-factor.ts). */
    requireTwoFactor: boolean("require_two_factor").notNull().default(false),
    createdAt: ts("created_at").notNull().defaultNow(),
  },
  (t) => [
    uniqueIndex("organizations_billing_group_key").on(t.billingGroupId),
    check("organizations_group_or_platform", sql`(${t.billingGroupId} IS NULL) = ${t.platform}`),
  ],
);

export const members = pgTable(
  "members",
  {
    id: text("id").primaryKey(),
    organizationId: text("organization_id")
      .notNull()
      .references(() => organizations.id, { onDelete: "cascade" }),
    userId: text("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    role: text("role").notNull(),
    createdAt: ts("created_at").notNull().defaultNow(),
  },
  (t) => [
    uniqueIndex("members_organization_user_key").on(t.organizationId, t.userId),
    index("members_user_idx").on(t.userId),
  ],
);

export const invitations = pgTable(
  "invitations",
  {
    id: text("id").primaryKey(),
    organizationId: text("organization_id")
      .notNull()
      .references(() => organizations.id, { onDelete: "cascade" }),
    email: text("email").notNull(),
    role: text("role"),
    status: text("status").notNull().default("pending"),
    expiresAt: ts("expires_at").notNull(),
    inviterId: text("inviter_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    createdAt: ts("created_at").notNull().defaultNow(),
  },
  (t) => [index("invitations_organization_idx").on(t.organizationId), index("invitations_email_idx").on(t.email)],
);

// Second factor (migration 0015): better-auth's twoFactor plugin (TOTP secret and recovery codes, both encrypted with
// the auth secret) and its passkey plugin (WebAuthn credentials).
export const twoFactors = pgTable(
  "two_factors",
  {
    id: text("id").primaryKey(),
    secret: text("secret").notNull(),
    backupCodes: text("backup_codes").notNull(),
    userId: text("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    verified: boolean("verified").default(true),
    failedVerificationCount: integer("failed_verification_count").default(0),
    lockedUntil: ts("locked_until"),
  },
  (t) => [uniqueIndex("two_factors_user_key").on(t.userId), index("two_factors_secret_idx").on(t.secret)],
);

export const passkeys = pgTable(
  "passkeys",
  {
    id: text("id").primaryKey(),
    name: text("name"),
    publicKey: text("public_key").notNull(),
    userId: text("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    credentialID: text("credential_id").notNull(),
    counter: integer("counter").notNull(),
    deviceType: text("device_type").notNull(),
    backedUp: boolean("backed_up").notNull(),
    transports: text("transports"),
    createdAt: ts("created_at").defaultNow(),
    aaguid: text("aaguid"),
  },
  (t) => [index("passkeys_user_idx").on(t.userId), uniqueIndex("passkeys_credential_key").on(t.credentialID)],
);
