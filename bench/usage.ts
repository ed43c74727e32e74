// GET /v1/usage (README "Benchmarks", case 11): one group with `calls` calls spread evenly over `days` days, with a
// skewed mix of 60 destinations, two suppliers, both directions and three hangup causes; then p50 latencies of
// 90-day reports (concurrency 1) against the 50 ms target. Data comes from server-side generate_series
// (like seed.ts) and goes through the calls insert trigger, so the rollup is built as ingest builds it.
import { sql } from "drizzle-orm";
import { createApiKey } from "@/lib/auth/manage-keys";
import { createBillingGroup } from "@/lib/billing/groups";
import { queryRows, type Db } from "@/lib/db/client";
import { importBuyRates, importSellRates } from "@/lib/rating/import-rates";
import { createSupplier } from "@/lib/rating/suppliers";
import { latency, type LatencyResult } from "./http";
import type { BenchServer } from "./server";

/** The usage deck: every prefix, rates rising with its index. */
function deckRows() {
  return PREFIXES.map((prefix, i) => ({
    prefix,
    rate: `0.0${String(1000 + i * 37).padStart(4, "0")}`,
    increment: { min: 1, interval: 1 },
    description: `Destination ${prefix}`,
  }));
}

export interface UsageSeeded {
  groupId: string;
  readKey: string;
  costKey: string;
  /** [gte, lte] of the 90-day reports: whole UTC days ending at the newest call's day. */
  range: { gte: string; lte: string };
  /** Rows of each rollup for this group. */
  rollupRows: Record<string, number>;
  /** A reseller with `customers` children sharing as many calls (issue 32), when seeded. */
  subtree?: SubtreeSeeded;
}

export interface SubtreeSeeded {
  resellerId: string;
  customers: number;
  /** calls:read_cost key of the reseller: its own tier's buy cost and margin over the subtree. */
  costKey: string;
  readKey: string;
}

/** Newest usage call; calls go back evenly from here. */
const USAGE_END = Date.UTC(2026, 9, 31, 23, 59, 0);
const COUNTRIES = [
  "44",
  "1",
  "33",
  "49",
  "34",
  "39",
  "31",
  "32",
  "41",
  "43",
  "46",
  "47",
  "45",
  "48",
  "351",
  "353",
  "30",
  "36",
  "40",
  "420",
];
/** 60 destinations: per country the country code, a mobile range and a capital range. */
const PREFIXES = COUNTRIES.flatMap((c) => [c, `${c}7`, `${c}20`]);

/**
 * Creates the usage group, its cards and keys; `insert` adds the calls (the caller runs it while the
 * secondary indexes of calls are dropped, like the listing data).
 */
export async function seedUsageGroup(
  db: Db,
  calls: number,
  days: number,
  log: (line: string) => void,
): Promise<UsageSeeded & { insert: () => Promise<void> }> {
  const group = await createBillingGroup(db, {
    name: "Bench usage",
    currency: "USD",
    openingBalanceMicros: 10n ** 15n,
  });
  const readKey = await createApiKey(db, {
    scopes: ["calls:read"],
    billingGroupId: group.id,
    name: "bench usage read",
  });
  // Suppliers are the platform's cost view (docs/contract.md §21): a platform key, narrowed to the group by `account`.
  const costKey = await createApiKey(db, {
    scopes: ["calls:read", "calls:read_cost"],
    billingGroupId: null,
    name: "bench usage cost",
  });
  const rows = deckRows();
  await importSellRates(db, group.id, rows);
  const suppliers = [
    await createSupplier(db, { name: "Usage carrier 1" }),
    await createSupplier(db, { name: "Usage carrier 2" }),
  ];
  for (const s of suppliers) await importBuyRates(db, s.id, rows);

  const stepMs = (days * 86_400_000) / calls;
  const insert = async () => {
    const chunk = 250_000;
    for (let from = 0; from < calls; from += chunk) {
      const to = Math.min(calls, from + chunk) - 1;
      const started = performance.now();
      // k: a scrambled index; the destination index is skewed (cube of a uniform) so a few destinations dominate.
      await db.execute(usageCallsSql(group.id, [], suppliers, stepMs, from, to, "bench-usage-"));
      log(
        `  usage calls ${to + 1}/${calls} (${Math.round(performance.now() - started)} ms for this chunk, rollup trigger included)`,
      );
    }
    // No ANALYZE: the server gathers the rollups' statistics at start where no autovacuum does (seed.ts, calls).
  };
  const endDay = new Date(USAGE_END);
  endDay.setUTCHours(0, 0, 0, 0);
  const lte = new Date(endDay.getTime() + 86_400_000 - 1);
  const gte = new Date(lte.getTime() + 1 - 90 * 86_400_000);
  return {
    groupId: group.id,
    readKey: readKey.key,
    costKey: costKey.key,
    range: { gte: gte.toISOString(), lte: lte.toISOString() },
    rollupRows: {},
    insert,
  };
}

/**
 * A reseller with `customers` children (issue 32), each with the usage group's deck, sharing `calls` calls over `days`
 * days as the usage group's are made, and the reseller's tier charge on each (depth 1, 60 % of the price, as ingest
 * would write it: call_tier_charges); `insert` adds the calls and charges.
 */
export async function seedUsageSubtree(
  db: Db,
  calls: number,
  days: number,
  customers: number,
  log: (line: string) => void,
): Promise<SubtreeSeeded & { insert: () => Promise<void> }> {
  const reseller = await createBillingGroup(db, {
    name: "Bench usage reseller",
    currency: "USD",
    openingBalanceMicros: 10n ** 15n,
  });
  const rows = deckRows();
  await importSellRates(db, reseller.id, rows);
  const ids: string[] = [];
  const started = performance.now();
  for (let i = 0; i < customers; i++) {
    const c = await createBillingGroup(db, { name: `Bench customer ${i}`, currency: "USD", parentId: reseller.id });
    await importSellRates(db, c.id, rows);
    ids.push(c.id);
  }
  log(`  ${customers} customers of the usage reseller in ${Math.round(performance.now() - started)} ms`);
  const costKey = await createApiKey(db, {
    scopes: ["calls:read", "calls:read_cost"],
    billingGroupId: reseller.id,
    name: "bench reseller cost",
  });
  const readKey = await createApiKey(db, {
    scopes: ["calls:read"],
    billingGroupId: reseller.id,
    name: "bench reseller read",
  });
  const suppliers = await queryRows<{ id: string }>(
    db,
    sql`SELECT id FROM suppliers WHERE name LIKE 'Usage carrier %' ORDER BY name`,
  );
  const stepMs = (days * 86_400_000) / calls;
  const insert = async () => {
    const chunk = 250_000;
    for (let from = 0; from < calls; from += chunk) {
      const to = Math.min(calls, from + chunk) - 1;
      const t0 = performance.now();
      await db.execute(usageCallsSql(reseller.id, ids, suppliers, stepMs, from, to, "bench-subtree-"));
      log(`  subtree calls ${to + 1}/${calls} (${Math.round(performance.now() - t0)} ms for this chunk)`);
    }
    const t0 = performance.now();
    await db.execute(sql`
      INSERT INTO call_tier_charges (billing_group_id, start_time, call_id, tier_group_id, depth, rated, matched_prefix,
        rate_micros, bill_duration, price_micros)
      SELECT c.billing_group_id, c.start_time, c.id, ${reseller.id}, 1, c.rated, c.matched_prefix,
        c.sell_rate_micros * 6 / 10, c.bill_duration, c.price_micros * 6 / 10
      FROM calls c WHERE c.uuid LIKE 'bench-subtree-%'`);
    log(`  subtree tier charges in ${Math.round(performance.now() - t0)} ms`);
  };
  return { resellerId: reseller.id, customers, costKey: costKey.key, readKey: readKey.key, insert };
}

/**
 * The usage calls i in [from, to] of `groupId`, or spread over `customers` when some are given (k: a scrambled index;
 * the destination index is skewed, the cube of a uniform, so a few destinations dominate).
 */
function usageCallsSql(
  groupId: string,
  customers: string[],
  suppliers: { id: string }[],
  stepMs: number,
  from: number,
  to: number,
  uuidPrefix: string,
) {
  return sql`
        INSERT INTO calls (uuid, billing_group_id, direction, from_number, to_number, start_time, answer_time, end_time,
          duration, bill_duration, hangup_cause, currency, rated, matched_prefix, sell_rate_micros, increment_min,
          increment_interval, price_micros, supplier_id, buy_rate_micros, buy_bill_duration, buy_cost_micros)
        SELECT ${uuidPrefix} || i, ${customers.length ? sql`(${`{${customers.join(",")}}`}::text[])[1 + (k / 7) % ${customers.length}]` : sql`${groupId}`}, CASE WHEN (k / 1000) % 10 < 7 THEN 'outbound' ELSE 'inbound' END,
          '1555' || lpad((i % 10000000)::text, 7, '0'), (${`{${PREFIXES.join(",")}}`}::text[])[1 + d] || lpad((k % 100000000)::text, 8, '0'),
          ts, CASE WHEN answered THEN ts + interval '3 seconds' END, ts + make_interval(secs => 3 + bill),
          3 + bill, bill, cause, 'USD', d < 57, CASE WHEN d < 57 THEN (${`{${PREFIXES.join(",")}}`}::text[])[1 + d] END,
          CASE WHEN d < 57 THEN 10000 + d * 370 END, CASE WHEN d < 57 THEN 1 END, CASE WHEN d < 57 THEN 1 END,
          CASE WHEN d < 57 THEN ((10000 + d * 370)::bigint * bill + 30) / 60 ELSE 0 END,
          (${`{${suppliers.map((s) => s.id).join(",")}}`}::text[])[1 + (k / 100000) % 2],
          CASE WHEN d < 57 THEN 7000 + d * 200 END, CASE WHEN d < 57 THEN bill END,
          CASE WHEN d < 57 THEN ((7000 + d * 200)::bigint * bill + 30) / 60 END
        FROM (
          SELECT i, k, floor(60 * power((k % 1000) / 1000.0, 3))::int AS d, cause, cause = 'NORMAL_CLEARING' AS answered,
            CASE WHEN cause = 'NORMAL_CLEARING' THEN 1 + (i % 900) ELSE 0 END AS bill,
            ${new Date(USAGE_END).toISOString()}::timestamptz - make_interval(secs => i * ${stepMs / 1000}::float8) AS ts
          FROM (
            SELECT i, k, CASE (k / 10000) % 8 WHEN 0 THEN 'NO_ANSWER' WHEN 1 THEN 'USER_BUSY' ELSE 'NORMAL_CLEARING' END AS cause
            FROM (SELECT i, (i * 2654435761) % 1000000007 AS k FROM generate_series(${from}::bigint, ${to}::bigint) AS i) AS a
          ) AS b
        ) AS c`;
}

export async function countRollupRows(db: Db, groupId: string): Promise<Record<string, number>> {
  const out: Record<string, number> = {};
  for (const table of ["usage_hourly", "usage_quarter", "usage_daily"]) {
    const [r] = await queryRows<{ n: string }>(
      db,
      sql`SELECT count(*)::text AS n FROM ${sql.raw(table)} WHERE billing_group_id = ${groupId}`,
    );
    out[table] = Number(r.n);
  }
  return out;
}

export interface UsageFigure {
  name: string;
  p50Ms: number;
  p95Ms: number;
  rows: number;
  /** 50 ms target, or none for the `to` filter (answered from calls: the documented slow path). */
  target: number | null;
}

export async function usageLatency(
  server: BenchServer,
  seeded: UsageSeeded,
  samples: number,
  log: (l: string) => void,
): Promise<UsageFigure[]> {
  const range = { "startTime[gte]": seeded.range.gte, "startTime[lte]": seeded.range.lte };
  // 90 local days in London and Kolkata: bounds at local midnight, not on UTC days.
  const localRange = (offsetHours: number) => ({
    "startTime[gte]": new Date(Date.parse(seeded.range.gte) - offsetHours * 3_600_000).toISOString(),
    "startTime[lte]": new Date(Date.parse(seeded.range.lte) - offsetHours * 3_600_000).toISOString(),
  });
  const cases: [string, Record<string, string>, string, number | null][] = [
    ["day, UTC", { groupBy: "day", ...range }, seeded.readKey, 50],
    ["day, Europe/London", { groupBy: "day", timeZone: "Europe/London", ...localRange(0) }, seeded.readKey, 50],
    [
      "day, Asia/Kolkata (+05:30)",
      { groupBy: "day", timeZone: "Asia/Kolkata", ...localRange(5.5) },
      seeded.readKey,
      50,
    ],
    [
      "month, America/New_York",
      { groupBy: "month", timeZone: "America/New_York", ...localRange(-5) },
      seeded.readKey,
      50,
    ],
    ["destination", { groupBy: "destination", ...range }, seeded.readKey, 50],
    [
      "destination, ragged bounds",
      { groupBy: "destination", "startTime[gte]": "2026-08-02T10:17:33Z", "startTime[lte]": "2026-10-31T13:42:10Z" },
      seeded.readKey,
      50,
    ],
    ["hangupCause, outbound", { groupBy: "hangupCause", direction: "outbound", ...range }, seeded.readKey, 50],
    ["supplier (cost key)", { groupBy: "supplier", account: seeded.groupId, ...range }, seeded.costKey, 50],
    ["day, to filter (calls, slow path)", { groupBy: "day", to: "4420", ...range }, seeded.readKey, null],
  ];
  const sub = seeded.subtree;
  if (sub) {
    // A reseller's 1 000 customers (issue 32): the counts from the rollups of every customer, its own buy cost and
    // margin from its call_tier_charges; the read key's report (no cost) is the same report without the tier's part.
    const n = `subtree of ${sub.customers}`;
    cases.push(
      [`${n}, day, UTC (reseller read key)`, { groupBy: "day", ...range }, sub.readKey, 50],
      [`${n}, day, UTC (reseller cost key)`, { groupBy: "day", ...range }, sub.costKey, 50],
      [
        `${n}, month, America/New_York (reseller cost key)`,
        { groupBy: "month", timeZone: "America/New_York", ...localRange(-5) },
        sub.costKey,
        50,
      ],
      [`${n}, account (reseller cost key)`, { groupBy: "account", ...range }, sub.costKey, 50],
      [`${n}, destination (reseller cost key)`, { groupBy: "destination", ...range }, sub.costKey, 50],
    );
  }
  const out: UsageFigure[] = [];
  const url = (params: Record<string, string>) => {
    const u = new URL("/v1/usage", server.baseUrl);
    for (const [k, v] of Object.entries(params)) u.searchParams.set(k, v);
    return u;
  };
  // One pass over every case first (it also counts the rows): the first report after start pays for cold caches
  // of the server and database.
  const rows: number[] = [];
  for (const [name, params, key] of cases) {
    const res = await fetch(url(params), { headers: { authorization: `Bearer ${key}` } });
    const text = await res.text();
    // A refused report would be measured as a fast one: say so and stop.
    if (res.status !== 200) throw new Error(`usage ${name}: ${res.status} ${text.slice(0, 500)}`);
    rows.push((JSON.parse(text) as { rows: unknown[] }).rows.length);
  }
  for (const [i, [name, params, key, target]] of cases.entries()) {
    const r: LatencyResult = await latency(url(params).toString(), { authorization: `Bearer ${key}` }, samples);
    log(`  usage ${name}: p50 ${r.p50Ms} ms, p95 ${r.p95Ms} ms, ${rows[i]} rows`);
    out.push({ name, p50Ms: r.p50Ms, p95Ms: r.p95Ms, rows: rows[i], target });
  }
  return out;
}
