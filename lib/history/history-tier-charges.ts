import { sql } from "drizzle-orm";
import { archivableCalls } from "@/lib/calls/archive-calls";
import type { StoredCall } from "@/lib/calls/stored-call";
import type { TierFigures } from "@/lib/calls/serialize-call";
import { queryRows, type Executor } from "@/lib/db/client";
import { callTierCharges } from "@/lib/db/schema";
import {
  dropMonthPartition,
  ensureMonthTable,
  historyColumns,
  insertSettings,
  type HistoryStore,
} from "./history-store";

// A moved month's reseller tier charges (docs/contract.md "History tier", "Reseller tiers"): call_tier_charges rows of
// the month's moved calls go to ClickHouse with them (a table with PostgreSQL's columns, partitioned by the call's start
// month as calls are), are verified with them per tier and UTC day, and leave PostgreSQL in the same archive DELETE.
// A reseller's cost view of a moved call then reads its tier's row (and its child's) there.

const BATCH = 10_000;

/** Every column of PostgreSQL's call_tier_charges, in its order: a column added there is added here. */
const TIER_COLUMNS = historyColumns(callTierCharges);

export const tierChargesTable = (store: HistoryStore) => `${store.database}.call_tier_charges`;

/**
 * Creates history's call_tier_charges when absent: MergeTree, one partition per UTC month of the call's start (as its
 * calls), sorted as PostgreSQL's primary key, so a page's calls' charges read as a few ranges.
 */
export async function ensureTierChargesSchema(store: HistoryStore): Promise<void> {
  // With a cluster, sharded as calls by the call's billing group: a call's charges are on its shard.
  await ensureMonthTable(
    store,
    "call_tier_charges",
    TIER_COLUMNS,
    "billing_group_id, start_time, call_id, tier_group_id",
  );
}

/** Drops a month's tier charges from history (a fresh copy, retention), on every shard: an absent partition is no error. */
export async function dropTierChargesMonth(store: HistoryStore, start: Date): Promise<void> {
  await dropMonthPartition(store, start, "call_tier_charges");
}

/** The copy's select list over `t`: ClickHouse's names, int8 as text, instants as epoch milliseconds, booleans 0/1. */
const COPY_COLUMNS = sql.raw(
  TIER_COLUMNS.map((c) =>
    c.columnType === "PgTimestamp"
      ? `(extract(epoch FROM t."${c.name}") * 1000)::int8::text AS "${c.name}"`
      : c.columnType === "PgBigInt64" || c.columnType === "PgBigInt53"
        ? `t."${c.name}"::text AS "${c.name}"`
        : c.columnType === "PgBoolean"
          ? `t."${c.name}"::int AS "${c.name}"`
          : `t."${c.name}"`,
  ).join(", "),
);

/** The tier charges of the month's archivable calls (what the archive's DELETE removes with them), for `WITH cut`. */
function monthTierCharges(start: Date, end: Date) {
  const { cut, where } = archivableCalls({ from: start, before: end });
  return {
    cut,
    from: sql`call_tier_charges t JOIN calls c ON c.billing_group_id = t.billing_group_id AND c.start_time = t.start_time
              AND c.id = t.call_id, invoiced_until u`,
    where,
  };
}

/**
 * Copies the tier charges of the month's archivable calls to history, its partition dropped first (a copy stopped
 * anywhere starts over whole, as the calls' copy). Batches walk (start_time, call_id, tier_group_id). Answers the count.
 */
export async function copyTierCharges(db: Executor, store: HistoryStore, start: Date, end: Date): Promise<number> {
  await ensureTierChargesSchema(store);
  await dropTierChargesMonth(store, start);
  const { cut, from, where } = monthTierCharges(start, end);
  let copied = 0;
  let after: { ms: string; id: string; tier: string } | undefined;
  for (;;) {
    const keyset = after
      ? sql`(t.start_time, t.call_id, t.tier_group_id) >
            (timestamptz 'epoch' + ${after.ms}::int8 * interval '1 millisecond', ${after.id}::int8, ${after.tier})`
      : sql`true`;
    const rows = await queryRows<Record<string, unknown>>(
      db,
      sql`WITH ${cut} SELECT ${COPY_COLUMNS} FROM ${from} WHERE ${where} AND ${keyset}
          ORDER BY t.start_time, t.call_id, t.tier_group_id LIMIT ${BATCH}`,
    );
    if (rows.length === 0) break;
    await store.client.insert({
      table: tierChargesTable(store),
      format: "JSONEachRow",
      values: rows,
      clickhouse_settings: insertSettings(store),
    });
    copied += rows.length;
    const last = rows[rows.length - 1];
    after = { ms: String(last.start_time), id: String(last.call_id), tier: String(last.tier_group_id) };
    if (rows.length < BATCH) break;
  }
  return copied;
}

/**
 * Where the two stores' tier charges of the month differ, per tier and UTC day of the call (count, sums of price,
 * billed seconds, depth and call ids, and how many are rated): empty when they agree. `db` may be the removal's
 * transaction, so its snapshot is the one the DELETE sees.
 */
export async function tierChargeDifferences(
  db: Executor,
  store: HistoryStore,
  start: Date,
  end: Date,
): Promise<string[]> {
  await ensureTierChargesSchema(store);
  const { cut, from, where } = monthTierCharges(start, end);
  type Sums = {
    tier: string;
    day: string;
    n: string;
    price: string;
    secs: string;
    depths: string;
    ids: string;
    rated_n: string;
  };
  const inPostgres = await queryRows<Sums>(
    db,
    sql`WITH ${cut} SELECT t.tier_group_id AS tier, to_char(t.start_time AT TIME ZONE 'UTC', 'YYYY-MM-DD') AS day,
               count(*)::text AS n, sum(t.price_micros)::text AS price, sum(t.bill_duration)::text AS secs,
               sum(t.depth)::text AS depths, sum(t.call_id)::text AS ids, count(*) FILTER (WHERE t.rated)::text AS rated_n
        FROM ${from} WHERE ${where} GROUP BY 1, 2`,
  );
  const result = await store.client.query({
    query: `SELECT tier_group_id AS tier, intDiv(start_time, 86400000) AS d, toString(count()) AS n,
                   toString(sum(price_micros)) AS price, toString(sum(bill_duration)) AS secs,
                   toString(sum(depth)) AS depths, toString(sum(call_id)) AS ids, toString(countIf(rated = 1)) AS rated_n
            FROM ${tierChargesTable(store)}
            WHERE start_time >= ${start.getTime()} AND start_time < ${end.getTime()}
            GROUP BY tier, d`,
    format: "JSONEachRow",
  });
  const inHistory = (await result.json<Omit<Sums, "day"> & { d: string | number }>()).map((r) => ({
    ...r,
    day: new Date(Number(r.d) * 86_400_000).toISOString().slice(0, 10),
  }));
  const sums = (rows: Sums[]) =>
    new Map(rows.map((r) => [`tier ${r.tier} ${r.day}`, [r.n, r.price, r.secs, r.depths, r.ids, r.rated_n].join(" ")]));
  const [pg, ch] = [sums(inPostgres), sums(inHistory)];
  return [...new Set([...pg.keys(), ...ch.keys()])].filter((k) => pg.get(k) !== ch.get(k)).sort();
}

/** A ClickHouse string literal (18.16 has no query parameters): backslash and quote escaped. */
const text = (s: string) => `'${s.replace(/\\/g, "\\\\").replace(/'/g, "\\'")}'`;

/**
 * serialize-call.ts tierSql's figures for history's calls, read from history's tier charges: `tierCost` what `tier`
 * pays its parent for the call, `tierSell` what its child on the path pays it (the call's price at depth 1, else the
 * child's own charge), `tierRate` its rate; all null where the tier has no charge on the call (its own calls). Keyed
 * by historyCallKey.
 */
/** A call's key in historyTierFigures' answer. */
export const historyCallKey = (row: Pick<StoredCall, "billingGroupId" | "id">) => `${row.billingGroupId} ${row.id}`;

export async function historyTierFigures(
  store: HistoryStore,
  tier: string,
  rows: readonly StoredCall[],
): Promise<Map<string, TierFigures>> {
  const figures = new Map<string, TierFigures>();
  const key = (group: string, id: string) => historyCallKey({ billingGroupId: group, id: BigInt(id) });
  for (const row of rows)
    figures.set(key(row.billingGroupId, String(row.id)), { tierCost: null, tierSell: null, tierRate: null });
  if (rows.length === 0) return figures;
  const groups = [...new Set(rows.map((r) => r.billingGroupId))];
  const result = await store.client.query({
    query: `SELECT billing_group_id, toString(call_id) AS id, tier_group_id, depth, toString(price_micros) AS price,
                   if(isNull(rate_micros), NULL, toString(rate_micros)) AS rate
            FROM ${tierChargesTable(store)}
            WHERE billing_group_id IN (${groups.map(text).join(", ")})
              AND call_id IN (${rows.map((r) => String(r.id)).join(", ")})
              AND start_time >= ${Math.min(...rows.map((r) => r.startTime.getTime()))}
              AND start_time <= ${Math.max(...rows.map((r) => r.startTime.getTime()))}`,
    format: "JSONEachRow",
  });
  type Charge = {
    billing_group_id: string;
    id: string;
    tier_group_id: string;
    depth: number | string;
    price: string;
    rate: string | null;
  };
  const charges = await result.json<Charge>();
  const byCall = new Map<string, Charge[]>();
  for (const c of charges) {
    const k = key(c.billing_group_id, c.id);
    byCall.set(k, [...(byCall.get(k) ?? []), c]);
  }
  for (const row of rows) {
    const k = key(row.billingGroupId, String(row.id));
    const own = byCall.get(k) ?? [];
    const mine = own.find((c) => c.tier_group_id === tier);
    if (!mine) continue;
    const depth = Number(mine.depth);
    const child = depth === 1 ? String(row.priceMicros) : own.find((c) => Number(c.depth) === depth - 1)?.price;
    figures.set(k, { tierCost: mine.price, tierSell: child ?? null, tierRate: mine.rate });
  }
  return figures;
}

/** Erasure's condition on history's tier charges: the account's calls' charges started before `before`. */
export const tierChargesOfAccount = (accountId: string, before: Date) =>
  `billing_group_id = ${text(accountId)} AND start_time < ${before.getTime()}`;
