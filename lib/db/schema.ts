import { sql } from "drizzle-orm";
import {
  bigint,
  boolean,
  char,
  index,
  integer,
  pgTable,
  primaryKey,
  smallint,
  text,
  timestamp,
  unique,
  uniqueIndex,
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
    balanceMicros: micros("balance_micros").notNull().default(sql`0`),
    creditLimitMicros: micros("credit_limit_micros").notNull().default(sql`0`),
    accountcode: text("accountcode"),
    disabledByOperator: boolean("disabled_by_operator").notNull().default(false),
    // Derived so it can never disagree with the balance: CONTRACT section 2.
    disabled: boolean("disabled")
      .notNull()
      .generatedAlwaysAs(sql`disabled_by_operator OR balance_micros <= -credit_limit_micros`),
    // Bumped on every change to the group's sell rates; rate caches compare it.
    rateCardVersion: bigint("rate_card_version", { mode: "number" }).notNull().default(0),
    createdAt: ts("created_at").notNull().defaultNow(),
  },
  (t) => [uniqueIndex("billing_groups_accountcode_key").on(t.accountcode)],
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

export const sellRates = pgTable(
  "sell_rates",
  {
    billingGroupId: text("billing_group_id")
      .notNull()
      .references(() => billingGroups.id, { onDelete: "cascade" }),
    prefix: text("prefix").notNull(),
    rateMicros: micros("rate_micros").notNull(),
    incrementMin: integer("increment_min").notNull(),
    incrementInterval: integer("increment_interval").notNull(),
    description: text("description"),
  },
  (t) => [primaryKey({ columns: [t.billingGroupId, t.prefix] })],
);

export const buyRates = pgTable(
  "buy_rates",
  {
    supplierId: text("supplier_id")
      .notNull()
      .references(() => suppliers.id, { onDelete: "cascade" }),
    prefix: text("prefix").notNull(),
    rateMicros: micros("rate_micros").notNull(),
    incrementMin: integer("increment_min").notNull(),
    incrementInterval: integer("increment_interval").notNull(),
    description: text("description"),
  },
  (t) => [primaryKey({ columns: [t.supplierId, t.prefix] })],
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
  },
  (t) => [uniqueIndex("api_keys_hash_key").on(t.hash)],
);

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

export const calls = pgTable(
  "calls",
  {
    id: bigint("id", { mode: "bigint" }).primaryKey().generatedAlwaysAsIdentity(),
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
    createdAt: ts("created_at").notNull().defaultNow(),
  },
  (t) => [
    // Idempotency is per billing group: one tenant's uuids can neither collide with nor reveal another's.
    uniqueIndex("calls_group_uuid_key").on(t.billingGroupId, t.uuid),
    // Keyset pagination for bound keys and for platform keys.
    index("calls_group_start_id_idx").on(t.billingGroupId, t.startTime.desc().nullsFirst(), t.id.desc().nullsFirst()),
    index("calls_start_id_idx").on(t.startTime.desc().nullsFirst(), t.id.desc().nullsFirst()),
    index("calls_group_hangup_start_id_idx").on(
      t.billingGroupId,
      sql`upper(${t.hangupCause})`,
      t.startTime.desc().nullsFirst(),
      t.id.desc().nullsFirst(),
    ),
    index("calls_to_trgm_idx").using("gin", sql`${t.toNumber} gin_trgm_ops`),
    index("calls_unrated_idx").on(t.billingGroupId).where(sql`NOT ${t.rated}`),
  ],
);

export const ledgerEntries = pgTable(
  "ledger_entries",
  {
    id: bigint("id", { mode: "bigint" }).primaryKey().generatedAlwaysAsIdentity(),
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
    index("ledger_group_idx").on(t.billingGroupId, t.createdAt),
    uniqueIndex("ledger_call_key").on(t.callId),
  ],
);

// Usage per (group, UTC hour, direction, hangup cause, prefix, supplier, currency), kept exact by statement-level
// triggers on calls (migration 0004) in the transaction that inserts or re-rates the calls. GET /v1/usage reads
// whole hours here and only partial hours from calls (lib/usage/summarize-usage.ts).
export const usageRollup = pgTable(
  "usage_rollup",
  {
    billingGroupId: text("billing_group_id").notNull(),
    hour: timestamp("hour", { withTimezone: true, mode: "date" }).notNull(),
    direction: text("direction", { enum: ["inbound", "outbound"] }).notNull(),
    // upper(calls.hangup_cause): the calls filter is case-insensitive.
    hangupCause: text("hangup_cause"),
    matchedPrefix: text("matched_prefix"),
    supplierId: text("supplier_id"),
    currency: char("currency", { length: 3 }).notNull(),
    calls: bigint("calls", { mode: "number" }).notNull(),
    answeredCalls: bigint("answered_calls", { mode: "number" }).notNull(),
    unratedCalls: bigint("unrated_calls", { mode: "number" }).notNull(),
    billedSeconds: bigint("billed_seconds", { mode: "number" }).notNull(),
    priceMicros: micros("price_micros").notNull(),
    // Over the calls that have a buy cost only, so margin is exactly the sum of the calls' margins.
    buyCostMicros: micros("buy_cost_micros").notNull(),
    marginMicros: micros("margin_micros").notNull(),
  },
  (t) => [
    unique("usage_rollup_key")
      .on(t.billingGroupId, t.hour, t.direction, t.hangupCause, t.matchedPrefix, t.supplierId, t.currency)
      .nullsNotDistinct(),
    index("usage_rollup_hour_idx").on(t.hour),
  ],
);
