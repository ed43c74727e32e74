// The history tier (README "Benchmarks", issue 33 item 5): the move of a PostgreSQL month of calls to ClickHouse, and
// the reads of a ClickHouse holding 100 million calls through the running product. Not a test: nothing here asserts
// a timing. `npx tsx bench/history.ts --move-only --move-calls N` measures the move alone.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { parseArgs } from "node:util";
import { createApiKey } from "@/lib/auth/manage-keys";
import { sql } from "drizzle-orm";
import { openDatabase, queryRows, type Db } from "@/lib/db/client";
import { ensureHistorySchema, openHistoryStore, type HistoryStore } from "@/lib/history/history-store";
import { moveMonth, type MoveStep } from "@/lib/history/move-month";
import { runInvoices } from "@/lib/invoices/run-invoices";
import { createTestDatabase } from "@/lib/testing/engines";
import type { Figure } from "./report";
import { BenchServer, buildProduction, ROOT } from "./server";
import { percentile, round } from "./stats";

export const BENCH_CLICKHOUSE_URL = process.env.BENCH_CLICKHOUSE_URL || "http://127.0.0.1:8123";

/** Calls of one UTC month spread over `groups` groups, inserted in SQL as bench/seed.ts does (rollups by trigger). */
async function seedMonth(db: Db, month: Date, calls: number, groups: number, log: (l: string) => void) {
  const monthEnd = new Date(Date.UTC(month.getUTCFullYear(), month.getUTCMonth() + 1, 1));
  const created = new Date(Date.UTC(month.getUTCFullYear(), month.getUTCMonth() - 1, 1));
  await db.execute(sql`INSERT INTO billing_groups (id, name, currency, time_zone, created_at)
    SELECT 'bg_move' || lpad(g::text, 6, '0'), 'Move customer ' || g, 'USD', 'UTC', ${created.toISOString()}::timestamptz
    FROM generate_series(1, ${groups}) g`);
  await db.execute(
    sql`SELECT ensure_call_partitions(${month.toISOString()}::timestamptz, ${monthEnd.toISOString()}::timestamptz)`,
  );
  const seconds = (monthEnd.getTime() - month.getTime()) / 1000;
  const chunk = 250_000;
  for (let from = 0; from < calls; from += chunk) {
    const to = Math.min(calls, from + chunk) - 1;
    const started = performance.now();
    await db.execute(sql`
      INSERT INTO calls (uuid, billing_group_id, direction, from_number, to_number, start_time, answer_time, end_time,
        duration, bill_duration, pdd_ms, hangup_cause, q850_cause, read_codec, write_codec, recording_url, accountcode,
        network_addr, currency, rated, matched_prefix, sell_rate_micros, increment_min, increment_interval, price_micros)
      SELECT 'move-' || i, 'bg_move' || lpad((1 + (i * 7919) % ${groups})::text, 6, '0'),
        CASE WHEN k < 700 THEN 'outbound' ELSE 'inbound' END,
        '1555' || lpad((i % 10000000)::text, 7, '0'),
        '44' || lpad(((i::bigint * 48271) % 10000000000)::text, 10, '0'),
        ts, CASE WHEN k % 8 = 0 THEN NULL ELSE ts + interval '3 seconds' END, ts + make_interval(secs => 3 + (i % 600)),
        3 + (i % 600), CASE WHEN k % 8 = 0 THEN 0 ELSE 60 * ceil((i % 600) / 60.0)::int END,
        1500 + (i % 3000),
        CASE WHEN k % 8 = 0 THEN 'NO_ANSWER' WHEN (k / 8) % 10 = 3 THEN 'USER_BUSY' ELSE 'NORMAL_CLEARING' END,
        CASE WHEN k % 8 = 0 THEN 19 WHEN (k / 8) % 10 = 3 THEN 17 ELSE 16 END,
        'PCMA', 'PCMA', NULL, NULL, '10.0.0.' || (i % 250), 'USD',
        true, '44', 12000, 60, 60, CASE WHEN k % 8 = 0 THEN 0 ELSE 12000 * ceil((i % 600) / 60.0)::bigint END
      FROM (SELECT i, (i * 2654435761) % 1000 AS k,
                   ${month.toISOString()}::timestamptz + make_interval(secs => (i::bigint * ${seconds}) / ${calls}) AS ts
            FROM generate_series(${from}::bigint, ${to}::bigint) AS i) AS s`);
    log(`  calls ${to + 1}/${calls} (${Math.round(performance.now() - started)} ms)`);
  }
  await db.execute(sql`ANALYZE calls`);
}

export interface MoveFigures {
  calls: number;
  seedSeconds: number;
  moveSeconds: number;
  callsPerSecond: number;
  /** Seconds of each step: copy (read, encode, insert), verify (both stores' sums), remove (the archive's DELETE). */
  steps: { copy: number; verify: number; remove: number };
  /** PostgreSQL's calls (table, indexes, TOAST) per call before the move, bytes. */
  postgresBytesPerCall: number;
  /** ClickHouse's compressed parts of the moved month per call, bytes. */
  clickhouseBytesPerCall: number;
}

/**
 * A month of `calls` calls over 200 groups on a fresh PostgreSQL database, invoiced, then moved by moveMonth to a
 * ClickHouse database of its own; the steps timed by onStep.
 */
export async function moveBench(calls: number, log: (l: string) => void): Promise<MoveFigures> {
  const { url, drop } = await createTestDatabase();
  const handle = await openDatabase({ url });
  const database = `cb_bench_move_${process.pid}`;
  const store: HistoryStore = openHistoryStore({ url: BENCH_CLICKHOUSE_URL, database });
  try {
    const db = handle.db;
    const now = new Date();
    const month = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() - 5, 1));
    let started = performance.now();
    await seedMonth(db, month, calls, 200, log);
    await runInvoices(db, { now, issuer: { name: "Bench Telecom", address: "" } });
    const seedSeconds = round((performance.now() - started) / 1000, 1);
    const [{ bytes }] = await queryRows<{ bytes: string }>(
      db,
      sql`SELECT sum(pg_total_relation_size(c.oid))::text AS bytes FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid
          WHERE i.inhparent = 'calls'::regclass`,
    );
    log(
      `  seeded and invoiced ${calls} calls in ${seedSeconds} s (${Math.round(Number(bytes) / calls)} B per call in PostgreSQL); moving`,
    );
    if (process.env.BENCH_SEED_ONLY) {
      log(`seeded ${url}`);
      process.exit(0);
    }
    const marks: Partial<Record<MoveStep, number>> = {};
    started = performance.now();
    const result = await moveMonth(db, store, {
      month,
      moveAfterMonths: 3,
      now,
      onStep: (step) => void (marks[step] ??= performance.now()),
    });
    const moveSeconds = (performance.now() - started) / 1000;
    if (result.state !== "removed" || result.calls !== String(calls))
      throw new Error(`move: ${JSON.stringify(result)}`);
    const part = await store.client.query({
      query: `SELECT toString(sum(bytes_on_disk)) AS b FROM system.parts WHERE database = '${database}' AND active`,
      format: "JSONEachRow",
    });
    const [{ b }] = await part.json<{ b: string }>();
    const s = (from: number, to: number) => round((to - from) / 1000, 2);
    return {
      calls,
      seedSeconds,
      moveSeconds: round(moveSeconds, 2),
      callsPerSecond: Math.round(calls / moveSeconds),
      steps: {
        copy: s(started, marks.copied!),
        verify: s(marks.copied!, marks.verified!),
        remove: s(marks.verified!, marks.removed!),
      },
      postgresBytesPerCall: Math.round(Number(bytes) / calls),
      clickhouseBytesPerCall: round(Number(b) / calls, 1),
    };
  } finally {
    await store.client.command({ query: `DROP DATABASE IF EXISTS ${database}` }).catch(() => undefined);
    await store.close();
    await handle.close();
    await drop();
  }
}

// ---- the reads of 100 million calls in ClickHouse ----

/** The bench's history database per size, kept between runs: loading 100 M calls takes minutes, so a run reuses it. */
const historyDatabase = (calls: number) => `callbook_bench_history_${calls}`;
/** The twelve UTC months the synthetic calls span (all moved: history_moves says removed). */
const FIRST_MONTH = Date.UTC(2025, 0, 1);
const MONTHS = 12;
const monthStart = (i: number) => Date.UTC(2025, i, 1);

/**
 * The calls, generated by ClickHouse itself from numbers(): start times even over the twelve months (calls numbered in
 * time order, a second's jitter), groups skewed (group g of G with probability ((g+1)/G)^(1/3) - (g/G)^(1/3): group 0
 * about 8 %, the smallest ones a few thousand calls a year), 70 % outbound, five destinations from 50 % (+1) to 5 % (+91)
 * with their rates, 80 % answered with exponential durations (mean 150 s, at most 2 h) billed per started minute, a
 * random uuid each (as switches send them: what costs the most on disk).
 */
function generatedCalls(from: number, count: number, total: number, groups: number): string {
  const span = monthStart(MONTHS) - FIRST_MONTH;
  return `SELECT id, uuid, billing_group_id, direction, from_number, to_number, start_time, answer_time, end_time,
      duration, bill_duration, pdd_ms, hangup_cause, q850_cause, read_codec, write_codec, recording_url, accountcode,
      network_addr, currency, rated, matched_prefix, sell_rate_micros, increment_min, increment_interval, price_micros,
      supplier_id, buy_rate_micros, buy_bill_duration, buy_cost_micros, rate_deck_id, connect_fee_micros,
      min_charge_micros, buy_rate_deck_id, buy_connect_fee_micros, buy_min_charge_micros, created_at
    FROM (
      SELECT toInt64(number + 1) AS id, toString(generateUUIDv4()) AS uuid,
        toUInt32(floor(${groups} * pow((cityHash64(number, 1) % 1000003) / 1000003, 3))) AS g,
        concat('bg_h', toString(g)) AS billing_group_id,
        cityHash64(number, 4) % 1000 AS k, k >= 200 AS answered,
        if(cityHash64(number, 8) % 10 < 7, 'outbound', 'inbound') AS direction,
        concat('1555', toString(1000000 + g * 10 + number % 10)) AS from_number,
        cityHash64(number, 5) % 100 AS d,
        multiIf(d < 50, '1', d < 70, '44', d < 85, '49', d < 95, '33', '91') AS prefix,
        multiIf(d < 50, 10000, d < 70, 20000, d < 85, 25000, d < 95, 30000, 60000) AS rate,
        concat(prefix, toString(1000000000 + cityHash64(number, 3) % 9000000000)) AS to_number,
        toInt64(${FIRST_MONTH} + intDiv(toUInt64(number) * ${span}, ${total}) + cityHash64(number, 2) % 1000) AS start_time,
        toInt64(1000 + cityHash64(number, 7) % 4000) AS pdd,
        if(answered, toInt32(least(7200, 1 + floor(-150 * log(((cityHash64(number, 6) % 1000000) + 1) / 1000001)))), toInt32(0)) AS billed_raw,
        if(answered, toNullable(start_time + pdd), CAST(NULL AS Nullable(Int64))) AS answer_time,
        start_time + pdd + billed_raw * 1000 AS end_time,
        toInt32(billed_raw + intDiv(pdd, 1000)) AS duration,
        toInt32(if(answered, intDiv(billed_raw + 59, 60) * 60, 0)) AS bill_duration,
        toNullable(toInt32(pdd)) AS pdd_ms,
        toNullable(multiIf(answered, 'NORMAL_CLEARING', k < 80, 'USER_BUSY', 'NO_ANSWER')) AS hangup_cause,
        toNullable(toInt16(multiIf(answered, 16, k < 80, 17, 19))) AS q850_cause,
        toNullable(if(k % 3 = 0, 'G729', 'PCMA')) AS read_codec, read_codec AS write_codec,
        CAST(NULL AS Nullable(String)) AS recording_url, CAST(NULL AS Nullable(String)) AS accountcode,
        toNullable(concat('10.0.', toString(g % 250), '.', toString(number % 250))) AS network_addr,
        'USD' AS currency, toUInt8(1) AS rated, toNullable(prefix) AS matched_prefix,
        toNullable(toInt64(rate)) AS sell_rate_micros, toNullable(toInt32(60)) AS increment_min,
        toNullable(toInt32(60)) AS increment_interval, toInt64(intDiv(rate * bill_duration, 60)) AS price_micros,
        toNullable(if(d % 2 = 0, 'sup_a', 'sup_b')) AS supplier_id, toNullable(toInt64(intDiv(rate * 7, 10))) AS buy_rate_micros,
        toNullable(bill_duration) AS buy_bill_duration,
        toNullable(toInt64(intDiv(intDiv(rate * 7, 10) * bill_duration, 60))) AS buy_cost_micros,
        toNullable(toInt64(1 + g)) AS rate_deck_id, CAST(NULL AS Nullable(Int64)) AS connect_fee_micros,
        CAST(NULL AS Nullable(Int64)) AS min_charge_micros, toNullable(toInt64(1)) AS buy_rate_deck_id,
        CAST(NULL AS Nullable(Int64)) AS buy_connect_fee_micros, CAST(NULL AS Nullable(Int64)) AS buy_min_charge_micros,
        end_time + 2000 AS created_at
      FROM numbers(${from}, ${count})
    )`;
}

async function chRows<T>(store: HistoryStore, query: string): Promise<T[]> {
  return (await store.client.query({ query, format: "JSONEachRow" })).json<T>();
}

/** Loads `calls` synthetic calls unless the bench database already holds exactly that many; answers the seconds taken. */
export async function loadHistory(store: HistoryStore, calls: number, groups: number, log: (l: string) => void) {
  await store.client.command({ query: `CREATE DATABASE IF NOT EXISTS ${store.database}` });
  const exists = await chRows<{ n: string }>(
    store,
    `SELECT toString(count()) AS n FROM system.tables WHERE database = '${store.database}' AND name = 'calls'`,
  );
  if (exists[0].n !== "0") {
    const [{ n }] = await chRows<{ n: string }>(store, `SELECT toString(count()) AS n FROM ${store.database}.calls`);
    if (Number(n) === calls) {
      log(`  ClickHouse already holds ${calls} calls in ${store.database}: reused`);
      // As an upgrade does: call_keys copied from calls once, where a database of older code has none.
      const started = performance.now();
      await ensureHistorySchema(store);
      log(`  schema ensured (call_keys) in ${round((performance.now() - started) / 1000, 1)} s`);
      return { seconds: null as number | null, callsPerSecond: null as number | null };
    }
    await store.client.command({ query: `DROP TABLE ${store.database}.calls` });
  }
  await ensureHistorySchema(store);
  const chunk = 10_000_000;
  const started = performance.now();
  for (let from = 0; from < calls; from += chunk) {
    const t = performance.now();
    const count = Math.min(chunk, calls - from);
    await store.client.command({
      query: `INSERT INTO ${store.database}.calls ${generatedCalls(from, count, calls, groups)}`,
    });
    log(`  ${from + count}/${calls} calls in ClickHouse (${round((performance.now() - t) / 1000, 1)} s for ${count})`);
  }
  const seconds = (performance.now() - started) / 1000;
  return { seconds: round(seconds, 1), callsPerSecond: Math.round(calls / seconds) };
}

/**
 * PostgreSQL's side of the moved months: the groups, history_moves (every month `removed`, with ClickHouse's totals),
 * and usage_daily as the ingest of those calls left it, from ClickHouse's totals per group and month spread over the
 * month's days (remainders on the first days) and two directions (70 % outbound, +1; 30 % inbound, +44): a year of
 * rollups adding up to exactly the calls, price, cost and seconds in ClickHouse, 2 rows per group and day.
 */
async function seedPostgresSide(db: Db, store: HistoryStore, groups: number, log: (l: string) => void) {
  await db.execute(sql`INSERT INTO billing_groups (id, name, currency, time_zone, created_at)
    SELECT 'bg_h' || g, 'History customer ' || g, 'USD', 'UTC', '2024-12-01T00:00:00Z'::timestamptz
    FROM generate_series(0, ${groups - 1}) g`);
  const monthOf = `toYYYYMM(toDateTime(intDiv(start_time, 1000), 'UTC'))`;
  const totals = await chRows<{ g: string; m: number; n: string; a: string; s: string; p: string; b: string }>(
    store,
    `SELECT billing_group_id AS g, ${monthOf} AS m, toString(count()) AS n,
            toString(countIf(answer_time IS NOT NULL)) AS a, toString(sum(bill_duration)) AS s,
            toString(sum(price_micros)) AS p, toString(sum(ifNull(buy_cost_micros, 0))) AS b
     FROM ${store.database}.calls GROUP BY g, m`,
  );
  const json = JSON.stringify(totals);
  await db.execute(sql`INSERT INTO history_moves (month, state, copy_attempts, copied_calls, calls, price_micros,
      buy_cost_micros, billed_seconds, copied_at, verified_at, removed_at)
    SELECT make_timestamptz(t.m / 100, t.m % 100, 1, 0, 0, 0, 'UTC'), 'removed', 1, sum(t.n), sum(t.n), sum(t.p), sum(t.b),
           sum(t.s), now(), now(), now()
    FROM json_to_recordset(${json}::json) AS t(g text, m int, n int8, a int8, s int8, p int8, b int8)
    GROUP BY t.m`);
  const started = performance.now();
  await db.execute(sql`INSERT INTO usage_daily (billing_group_id, day, direction, matched_prefix, supplier_id, currency,
      calls, answered_calls, unrated_calls, billed_seconds, price_micros, buy_cost_micros, margin_micros)
    WITH t AS (
      SELECT t.*, make_timestamptz(t.m / 100, t.m % 100, 1, 0, 0, 0, 'UTC') AS first,
             extract(day FROM make_timestamptz(t.m / 100, t.m % 100, 1, 0, 0, 0, 'UTC') + interval '1 month' - interval '1 day')::int AS days
      FROM json_to_recordset(${json}::json) AS t(g text, m int, n int8, a int8, s int8, p int8, b int8)
    ), per_day AS (
      SELECT t.g, t.first + (i - 1) * interval '1 day' AS day,
             t.n / t.days + (CASE WHEN i <= t.n % t.days THEN 1 ELSE 0 END) AS n,
             t.a / t.days + (CASE WHEN i <= t.a % t.days THEN 1 ELSE 0 END) AS a,
             t.s / t.days + (CASE WHEN i <= t.s % t.days THEN 1 ELSE 0 END) AS s,
             t.p / t.days + (CASE WHEN i <= t.p % t.days THEN 1 ELSE 0 END) AS p,
             t.b / t.days + (CASE WHEN i <= t.b % t.days THEN 1 ELSE 0 END) AS b
      FROM t, generate_series(1, t.days) AS i
    )
    SELECT g, day, x.dir, x.prefix, NULL, 'USD',
           CASE WHEN x.out THEN n * 7 / 10 ELSE n - n * 7 / 10 END,
           CASE WHEN x.out THEN a * 7 / 10 ELSE a - a * 7 / 10 END, 0,
           CASE WHEN x.out THEN s * 7 / 10 ELSE s - s * 7 / 10 END,
           CASE WHEN x.out THEN p * 7 / 10 ELSE p - p * 7 / 10 END,
           CASE WHEN x.out THEN b * 7 / 10 ELSE b - b * 7 / 10 END,
           CASE WHEN x.out THEN p * 7 / 10 - b * 7 / 10 ELSE (p - p * 7 / 10) - (b - b * 7 / 10) END
    FROM per_day, (VALUES ('outbound', '1', true), ('inbound', '44', false)) AS x(dir, prefix, out)`);
  // usage_hourly (what a report by day or month reads) for group bg_h0 alone, from its ClickHouse totals per hour:
  // a platform's year of hourly rows (some 35 M here) is beyond this bench's seeding time.
  const hours = await chRows<{ h: string; n: string; a: string; s: string; p: string; b: string }>(
    store,
    `SELECT toString(intDiv(start_time, 3600000)) AS h, toString(count()) AS n,
            toString(countIf(answer_time IS NOT NULL)) AS a, toString(sum(bill_duration)) AS s,
            toString(sum(price_micros)) AS p, toString(sum(ifNull(buy_cost_micros, 0))) AS b
     FROM ${store.database}.calls WHERE billing_group_id = 'bg_h0' GROUP BY h`,
  );
  await db.execute(sql`INSERT INTO usage_hourly (billing_group_id, hour, direction, hangup_cause, currency, calls,
      answered_calls, unrated_calls, billed_seconds, price_micros, buy_cost_micros, margin_micros)
    SELECT 'bg_h0', to_timestamp(t.h * 3600), x.dir, 'NORMAL_CLEARING', 'USD',
           CASE WHEN x.out THEN t.n * 7 / 10 ELSE t.n - t.n * 7 / 10 END,
           CASE WHEN x.out THEN t.a * 7 / 10 ELSE t.a - t.a * 7 / 10 END, 0,
           CASE WHEN x.out THEN t.s * 7 / 10 ELSE t.s - t.s * 7 / 10 END,
           CASE WHEN x.out THEN t.p * 7 / 10 ELSE t.p - t.p * 7 / 10 END,
           CASE WHEN x.out THEN t.b * 7 / 10 ELSE t.b - t.b * 7 / 10 END,
           CASE WHEN x.out THEN t.p * 7 / 10 - t.b * 7 / 10 ELSE (t.p - t.p * 7 / 10) - (t.b - t.b * 7 / 10) END
    FROM json_to_recordset(${JSON.stringify(hours)}::json) AS t(h int8, n int8, a int8, s int8, p int8, b int8),
         (VALUES ('outbound', true), ('inbound', false)) AS x(dir, out)`);
  await db.execute(sql`ANALYZE billing_groups, history_moves, usage_daily, usage_hourly`);
  const [{ rows }] = await queryRows<{ rows: number }>(db, sql`SELECT count(*)::int AS rows FROM usage_daily`);
  log(
    `  usage_daily: ${rows} rows for a year of ${groups} groups in ${round((performance.now() - started) / 1000, 1)} s`,
  );
  return rows;
}

export interface Timing {
  p50Ms: number;
  p99Ms: number;
  samples: number;
  bytes: number;
}

/** `samples` sequential GETs (after `warmup`), each read whole; p50 and p99 of their wall times. */
async function timeGets(url: string, key: string, samples: number, warmup = 3): Promise<Timing> {
  const times: number[] = [];
  let bytes = 0;
  for (let i = 0; i < warmup + samples; i++) {
    const t = performance.now();
    const response = await fetch(url, { headers: { authorization: `Bearer ${key}` } });
    const body = await response.text();
    if (!response.ok) throw new Error(`GET ${url}: ${response.status} ${body.slice(0, 300)}`);
    if (i >= warmup) times.push(performance.now() - t);
    bytes = body.length;
  }
  return { p50Ms: round(percentile(times, 50), 1), p99Ms: round(percentile(times, 99), 1), samples, bytes };
}

/** The URL of the page `pages` pages into a listing (followed through nextPageUrl). */
async function deepUrl(first: string, key: string, pages: number): Promise<string> {
  let url = first;
  for (let i = 0; i < pages; i++) {
    const response = await fetch(url, { headers: { authorization: `Bearer ${key}` } });
    const page = (await response.json()) as { nextPageUrl: string | null };
    if (!page.nextPageUrl) throw new Error(`${first}: only ${i + 1} pages`);
    url = page.nextPageUrl;
  }
  return url;
}

export interface HistoryFigures {
  calls: number;
  groups: number;
  load: { seconds: number | null; callsPerSecond: number | null };
  clickhouse: { bytesOnDisk: number; bytesPerCall: number; parts: number; uncompressedBytesPerCall: number };
  usageDailyRows: number;
  oneGroupCallsInMonth: number;
  pages: { label: string; timing: Timing }[];
  export: { label: string; rows: number; seconds: number; rowsPerSecond: number };
  usage: { label: string; timing: Timing; calls: number }[];
  /** Absent with --move-calls 0 (the move measured by its own run: --move-only). */
  move?: MoveFigures;
}

export interface HistoryOptions {
  calls: number;
  groups: number;
  moveCalls: number;
  samples: number;
  deepPages: number;
  reuseBuild: boolean;
}

/** The whole case: load (or reuse) ClickHouse, seed PostgreSQL, start the server, read; then the move. */
export async function historyBench(options: HistoryOptions, log: (l: string) => void): Promise<HistoryFigures> {
  const store = openHistoryStore({ url: BENCH_CLICKHOUSE_URL, database: historyDatabase(options.calls) });
  log(`history: disk before loading: ${diskFree()}`);
  log(`history: ${options.calls} synthetic calls over ${MONTHS} months and ${options.groups} groups in ClickHouse`);
  const load = await loadHistory(store, options.calls, options.groups, log);
  const [parts] = await chRows<{ b: string; u: string; n: string }>(
    store,
    `SELECT toString(sum(bytes_on_disk)) AS b, toString(sum(data_uncompressed_bytes)) AS u, toString(count()) AS n
     FROM system.parts WHERE database = '${store.database}' AND table = 'calls' AND active`,
  );
  const clickhouse = {
    bytesOnDisk: Number(parts.b),
    bytesPerCall: round(Number(parts.b) / options.calls, 1),
    parts: Number(parts.n),
    uncompressedBytesPerCall: round(Number(parts.u) / options.calls, 1),
  };
  log(`  ${JSON.stringify(clickhouse)}; disk now ${diskFree()}`);
  const { url, drop } = await createTestDatabase();
  const handle = await openDatabase({ url });
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "callbook-bench-history-"));
  let server: BenchServer | undefined;
  try {
    const db = handle.db;
    const usageDailyRows = await seedPostgresSide(db, store, options.groups, log);
    const platform = await createApiKey(db, { scopes: ["calls:read"], billingGroupId: null, name: "bench platform" });
    const big = await createApiKey(db, { scopes: ["calls:read"], billingGroupId: "bg_h0", name: "bench bg_h0" });
    const mid = await createApiKey(db, { scopes: ["calls:read"], billingGroupId: "bg_h100", name: "bench bg_h100" });
    buildProduction(log, options.reuseBuild);
    process.env.HISTORY_CLICKHOUSE_URL = `${BENCH_CLICKHOUSE_URL}/${store.database}`;
    server = await BenchServer.start({
      dataDir,
      databaseUrl: url,
      logFile: path.join(ROOT, "bench", "results", "history-server.log"),
    });
    const base = server.baseUrl;
    // An old month, moved: March 2025.
    const march = `startTime[gte]=2025-03-01T00:00:00Z&startTime[lte]=2025-03-31T23:59:59.999Z`;
    const [{ n: inMonth }] = await chRows<{ n: string }>(
      store,
      `SELECT toString(count()) AS n FROM ${store.database}.calls WHERE billing_group_id = 'bg_h0'
         AND start_time >= ${monthStart(2)} AND start_time < ${monthStart(3)}`,
    );
    const pages: HistoryFigures["pages"] = [];
    // A platform page of a moved month reads the month's partition whole (18.16 has no read in order): seconds each,
    // so fewer samples and a shallower deep page than for one group.
    const platformSamples = Math.min(options.samples, 5);
    const platformDeep = Math.min(options.deepPages, 5);
    for (const [who, key, samples, deepPages] of [
      ["one group (bg_h0)", big.key, options.samples, options.deepPages],
      ["platform", platform.key, platformSamples, platformDeep],
    ] as const) {
      const first = `${base}/v1/calls?pageSize=100&${march}`;
      log(`  GET /v1/calls, March 2025, ${who}: first page`);
      pages.push({ label: `${who}, first page`, timing: await timeGets(first, key, samples, 1) });
      const deep = await deepUrl(first, key, deepPages);
      log(`  GET /v1/calls, March 2025, ${who}: ${deepPages} pages deep`);
      pages.push({ label: `${who}, ${deepPages * 100} rows deep`, timing: await timeGets(deep, key, samples, 1) });
    }
    log("  GET /v1/calls/export, March 2025, one group (bg_h100)");
    const started = performance.now();
    const response = await fetch(`${base}/v1/calls/export?${march}`, {
      headers: { authorization: `Bearer ${mid.key}` },
    });
    const csv = await response.text();
    if (!response.ok) throw new Error(`export: ${response.status} ${csv.slice(0, 300)}`);
    const seconds = (performance.now() - started) / 1000;
    const rows = csv.split("\r\n").filter(Boolean).length - 1;
    const exported = {
      label: "one group's month (bg_h100), CSV",
      rows,
      seconds: round(seconds, 2),
      rowsPerSecond: Math.round(rows / seconds),
    };
    const year = `startTime[gte]=2025-01-01T00:00:00Z&startTime[lte]=2025-12-31T23:59:59.999Z`;
    const usage: HistoryFigures["usage"] = [];
    // By destination: usage_daily (seeded for every group); by month: usage_hourly (seeded for bg_h0 only).
    for (const [who, key, groupBy] of [
      ["one group (bg_h0), by destination", big.key, "destination"],
      ["platform, by destination", platform.key, "destination"],
      ["one group (bg_h0), by month", big.key, "month"],
    ] as const) {
      const usageUrl = `${base}/v1/usage?groupBy=${groupBy}&${year}`;
      log(`  GET /v1/usage over 2025, ${who}`);
      const timing = await timeGets(usageUrl, key, options.samples);
      const body = (await (await fetch(usageUrl, { headers: { authorization: `Bearer ${key}` } })).json()) as {
        totals: { calls: number }[];
      };
      usage.push({ label: who, timing, calls: body.totals.reduce((n, t) => n + Number(t.calls), 0) });
    }
    await server.stop();
    server = undefined;
    if (options.moveCalls > 0) log(`history: the move of a PostgreSQL month of ${options.moveCalls} calls`);
    const move = options.moveCalls > 0 ? await moveBench(options.moveCalls, log) : undefined;
    return {
      calls: options.calls,
      groups: options.groups,
      load,
      clickhouse,
      usageDailyRows,
      oneGroupCallsInMonth: Number(inMonth),
      pages,
      export: exported,
      usage,
      move,
    };
  } finally {
    await server?.stop();
    await handle.close();
    await drop();
    await store.close();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

/** The report's rows (case 33): targets of issue 33 item 5 where it names one. */
export function historyFigures(f: HistoryFigures): Figure[] {
  const ch = "clickhouse";
  const out: Figure[] = [
    {
      case: "33",
      measure: `calls loaded into ClickHouse (${f.groups} groups, 12 months)`,
      engine: ch,
      value: f.calls,
      unit: "",
    },
    ...(f.load.callsPerSecond === null
      ? []
      : [
          {
            case: "33",
            measure: "  load rate (INSERT ... SELECT FROM numbers)",
            engine: ch,
            value: f.load.callsPerSecond,
            unit: "calls/s",
          },
        ]),
    {
      case: "33",
      measure: `bytes per call on disk (${f.clickhouse.parts} parts)`,
      engine: ch,
      value: f.clickhouse.bytesPerCall,
      unit: "B",
    },
  ];
  for (const p of f.pages) {
    const first = p.label.endsWith("first page");
    out.push({
      case: "33",
      measure: `GET /v1/calls March 2025 (moved), ${p.label} p50`,
      engine: ch,
      value: p.timing.p50Ms,
      unit: "ms",
      ...(first ? { target: ["<", 100] as Figure["target"] } : {}),
    });
    out.push({ case: "33", measure: "  p99", engine: ch, value: p.timing.p99Ms, unit: "ms" });
  }
  out.push({
    case: "33",
    measure: `GET /v1/calls/export, ${f.export.label}: ${f.export.rows} rows`,
    engine: ch,
    value: f.export.seconds,
    unit: "s",
  });
  for (const u of f.usage) {
    out.push({
      case: "33",
      measure: `GET /v1/usage 2025, ${u.label} (${u.calls} calls, from the rollups) p50`,
      engine: "postgres",
      value: u.timing.p50Ms,
      unit: "ms",
      target: ["<", 500],
    });
    out.push({ case: "33", measure: "  p99", engine: "postgres", value: u.timing.p99Ms, unit: "ms" });
  }
  if (f.move) out.push(...moveFigures(f.move));
  return out;
}

/** The move's rows: its rate (issue 33's target) and the bytes per call of both stores for that month. */
export function moveFigures(move: MoveFigures): Figure[] {
  return [
    {
      case: "33",
      measure: "bytes per call on disk (calls, indexes, TOAST; the moved month)",
      engine: "postgres",
      value: move.postgresBytesPerCall,
      unit: "B",
    },
    {
      case: "33",
      measure: "  the same month in ClickHouse",
      engine: "clickhouse",
      value: move.clickhouseBytesPerCall,
      unit: "B",
    },
    {
      case: "33",
      measure: `move of a month of ${move.calls} calls (copy ${move.steps.copy} s, verify ${move.steps.verify} s, remove ${move.steps.remove} s)`,
      engine: "postgres",
      value: move.callsPerSecond,
      unit: "calls/s",
      target: [">=", 50_000],
    },
  ];
}

function diskFree(): string {
  const s = fs.statfsSync("/");
  return `${round((s.bavail * s.bsize) / 2 ** 30, 1)} GiB free`;
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      "move-only": { type: "boolean", default: false },
      "move-calls": { type: "string", default: "1000000" },
      "history-calls": { type: "string", default: "100000000" },
      groups: { type: "string", default: "2000" },
      samples: { type: "string", default: "20" },
      "deep-pages": { type: "string", default: "20" },
      "reuse-build": { type: "boolean", default: false },
    },
  });
  const log = (l: string) => console.log(l);
  if (values["move-only"]) {
    log(JSON.stringify(await moveBench(Number(values["move-calls"]), log), null, 2));
    return;
  }
  const figures = await historyBench(
    {
      calls: Number(values["history-calls"]),
      groups: Number(values.groups),
      moveCalls: Number(values["move-calls"]),
      samples: Number(values.samples),
      deepPages: Number(values["deep-pages"]),
      reuseBuild: values["reuse-build"]!,
    },
    log,
  );
  log(JSON.stringify(figures, null, 2));
}

if (process.argv[1]?.endsWith("history.ts")) void main();
