// Invoices (README "Benchmarks", docs/contract.md §10): the invoice run for many groups with a month of usage each,
// seeded straight into the rollups it reads (usage_daily) with a sell deck and a top-up per group; and the PDF of a
// 500-line invoice. Not a test: nothing here asserts a timing.
import { sql } from "drizzle-orm";
import { openDatabase, queryRows, type Db } from "@/lib/db/client";
import type { StoredInvoice, StoredLine } from "@/lib/invoices/read-invoices";
import { renderInvoicePdf } from "@/lib/invoices/render-pdf";
import { runInvoices, type InvoiceRunResult } from "@/lib/invoices/run-invoices";
import { createTestDatabase } from "@/lib/testing/engines";
import { median, round } from "./stats";

const PREFIXES: [string, string][] = [
  ["1", "United States"],
  ["44", "United Kingdom"],
  ["4420", "London"],
  ["49", "Germany"],
  ["33", "France"],
];

export interface InvoiceRunFigures {
  groups: number;
  usageDailyRows: number;
  seedSeconds: number;
  runSeconds: number;
  result: InvoiceRunResult;
  againSeconds: number;
  again: InvoiceRunResult;
}

/**
 * `groups` groups on a fresh PostgreSQL database, created at the start of the last closed UTC month (a quarter of
 * them in Europe/Berlin, whose month the UTC days do not tile: the cut days are read from calls), each with
 * 5 destinations x 2 directions x every day of that month in usage_daily; then one invoice run, and a second one
 * (which issues nothing).
 */
export async function invoiceRunBench(
  groups: number,
  log: (line: string) => void,
  options: { tiers?: boolean } = {},
): Promise<InvoiceRunFigures> {
  const { url, drop } = await createTestDatabase();
  const handle = await openDatabase({ url });
  try {
    const now = new Date();
    const monthStart = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() - 1, 1));
    const monthEnd = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), 1));
    const seedStarted = performance.now();
    const db = handle.db;
    await db.execute(sql`INSERT INTO billing_groups (id, name, currency, time_zone, created_at)
      SELECT 'bg_bench' || lpad(g::text, 6, '0'), 'Bench customer ' || g, 'USD',
             CASE WHEN g % 4 = 0 THEN 'Europe/Berlin' ELSE 'UTC' END, ${monthStart.toISOString()}::timestamptz
      FROM generate_series(1, ${groups}) g`);
    await db.execute(sql`INSERT INTO rate_decks (billing_group_id, effective_from)
      SELECT id, '2000-01-01T00:00:00Z' FROM billing_groups`);
    const prefixes = JSON.stringify(PREFIXES.map(([p, d]) => ({ p, d })));
    await db.execute(sql`INSERT INTO sell_rates (deck_id, billing_group_id, prefix, rate_micros, increment_min,
        increment_interval, description)
      SELECT d.id, d.billing_group_id, x.p, 12000, 1, 1, x.d FROM rate_decks d, json_to_recordset(${prefixes}::json) AS x(p text, d text)`);
    await db.execute(sql`INSERT INTO usage_daily (billing_group_id, day, direction, matched_prefix, supplier_id, currency,
        calls, answered_calls, unrated_calls, billed_seconds, price_micros, buy_cost_micros, margin_micros)
      SELECT g.id, day, dir, x.p, NULL, 'USD', 40, 31, 0, 3600, 240000 + (abs(hashtext(g.id || x.p || dir || day::text)) % 100000),
             0, 0
      FROM billing_groups g,
           generate_series(${monthStart.toISOString()}::timestamptz, ${monthEnd.toISOString()}::timestamptz - interval '1 day', interval '1 day') AS day,
           (VALUES ('inbound'), ('outbound')) AS d(dir),
           json_to_recordset(${prefixes}::json) AS x(p text, d text)`);
    await db.execute(sql`INSERT INTO ledger_entries (billing_group_id, kind, amount_micros, description, created_at)
      SELECT id, 'topup', 50000000, 'Top-up', ${new Date(monthStart.getTime() + 10 * 86_400_000).toISOString()}::timestamptz
      FROM billing_groups`);
    if (options.tiers) await seedTiers(db, groups, monthStart, log);
    // The seeded tables only: invoices stays as a fresh deployment has it (never analyzed).
    await db.execute(
      sql`ANALYZE billing_groups, rate_decks, sell_rates, usage_daily, ledger_entries, calls, call_tier_charges`,
    );
    const [{ n }] = await queryRows<{ n: number }>(db, sql`SELECT count(*)::int AS n FROM usage_daily`);
    const seedSeconds = round((performance.now() - seedStarted) / 1000, 1);
    log(`  seeded ${groups} groups, ${n} usage_daily rows in ${seedSeconds} s; invoice run`);
    const issuer = { name: "Bench Telecom", address: "1 Bench Road" };
    let started = performance.now();
    const result = await runInvoices(db, { now, issuer });
    const runSeconds = round((performance.now() - started) / 1000, 1);
    log(`  ${result.invoices} invoices in ${runSeconds} s; again`);
    started = performance.now();
    const again = await runInvoices(db, { now, issuer });
    const againSeconds = round((performance.now() - started) / 1000, 2);
    return { groups, usageDailyRows: n, seedSeconds, runSeconds, result, againSeconds, again };
  } finally {
    await handle.close();
    await drop();
  }
}

const RESELLERS = 10;
const TIER_CALLS_PER_CUSTOMER = 20;

/**
 * Reseller tiers (issue 32): RESELLERS root resellers, and every other group made a customer of one of them (so the
 * resellers issue half the invoices in their own series); each such customer gets TIER_CALLS_PER_CUSTOMER calls of
 * the month with its reseller's tier charge (call_tier_charges, depth 1), which the reseller's invoice bills. The calls'
 * re-check marks are cleared: they are on time, not late CDRs.
 */
async function seedTiers(db: Db, groups: number, monthStart: Date, log: (line: string) => void): Promise<void> {
  await db.execute(sql`INSERT INTO billing_groups (id, name, currency, time_zone, created_at)
    SELECT 'bg_benchr' || lpad(r::text, 3, '0'), 'Bench reseller ' || r, 'USD', 'UTC', ${monthStart.toISOString()}::timestamptz
    FROM generate_series(1, ${RESELLERS}) r`);
  await db.execute(sql`INSERT INTO rate_decks (billing_group_id, effective_from)
    SELECT id, '2000-01-01T00:00:00Z' FROM billing_groups WHERE id LIKE 'bg_benchr%'`);
  const prefixes = JSON.stringify(PREFIXES.map(([p, d]) => ({ p, d })));
  await db.execute(sql`INSERT INTO sell_rates (deck_id, billing_group_id, prefix, rate_micros, increment_min,
      increment_interval, description)
    SELECT d.id, d.billing_group_id, x.p, 7000, 1, 1, x.d FROM rate_decks d, json_to_recordset(${prefixes}::json) AS x(p text, d text)
    WHERE d.billing_group_id LIKE 'bg_benchr%'`);
  await db.execute(sql`UPDATE billing_groups SET parent_id = 'bg_benchr' || lpad((1 + right(id, 6)::int % ${RESELLERS})::text, 3, '0')
    WHERE id LIKE 'bg_bench0%' AND right(id, 6)::int % 2 = 0`);
  await db.execute(sql`INSERT INTO calls (uuid, billing_group_id, direction, from_number, to_number, start_time,
      answer_time, end_time, duration, bill_duration, hangup_cause, currency, rated, matched_prefix, sell_rate_micros,
      increment_min, increment_interval, price_micros)
    SELECT 'bench-tier-' || g.id || '-' || i, g.id, CASE WHEN i % 3 = 0 THEN 'inbound' ELSE 'outbound' END, '15550001',
      x.p || '5550100', t, t, t + interval '90 seconds', 90, 90, 'NORMAL_CLEARING', 'USD', true, x.p, 12000, 1, 1, 18000
    FROM billing_groups g, generate_series(1, ${TIER_CALLS_PER_CUSTOMER}) i,
      LATERAL (SELECT ${monthStart.toISOString()}::timestamptz + make_interval(hours => 2 + i * 30) AS t) AS ts,
      LATERAL (SELECT (${prefixes}::json -> (i % ${PREFIXES.length})) ->> 'p' AS p) AS x
    WHERE g.parent_id IS NOT NULL`);
  await db.execute(sql`INSERT INTO call_tier_charges (billing_group_id, start_time, call_id, tier_group_id, depth, rated,
      matched_prefix, rate_micros, bill_duration, price_micros)
    SELECT c.billing_group_id, c.start_time, c.id, g.parent_id, 1, true, c.matched_prefix, 7000, 90, 10500
    FROM calls c JOIN billing_groups g ON g.id = c.billing_group_id WHERE c.uuid LIKE 'bench-tier-%'`);
  await db.execute(sql`DELETE FROM invoice_recheck_marks`);
  const [{ n }] = await queryRows<{ n: number }>(db, sql`SELECT count(*)::int AS n FROM call_tier_charges`);
  log(`  tiers: ${RESELLERS} resellers, ${groups / 2} of the groups their customers, ${n} tier charges`);
}

/** A stored invoice of `lines` usage lines (what the PDF renders), no database needed. */
export function benchInvoice(lines: number): StoredInvoice {
  const usage: StoredLine[] = Array.from({ length: lines }, (_, i) => ({
    kind: "usage",
    direction: i % 2 ? "inbound" : "outbound",
    prefix: String(100 + i),
    description: `Destination ${i} mobile (${100 + i})`,
    calls: 100 + i,
    billedSeconds: 6000 + i * 7,
    amountMicros: BigInt(1_234_567 + i * 1_001),
    occurredAt: null,
  }));
  const subtotal = usage.reduce((s, l) => s + l.amountMicros, 0n);
  return {
    id: "inv_bench",
    seq: "1",
    kind: "invoice",
    number: "INV-000001",
    billingGroupId: "bg_bench",
    invoiceId: null,
    invoiceNumber: null,
    periodStart: new Date("2026-10-01T00:00:00Z"),
    periodEnd: new Date("2026-11-01T00:00:00Z"),
    timeZone: "UTC",
    billingMode: "postpaid",
    taxRatePpm: 200_000,
    currency: "USD",
    customerName: "Bench customer",
    issuerName: "Bench Telecom",
    issuerAddress: "1 Bench Road\nBenchville",
    subtotalMicros: subtotal,
    taxMicros: subtotal / 5n,
    totalMicros: subtotal + subtotal / 5n,
    balance: { opening: 0n, topups: 50_000_000n, adjustments: 0n, debits: -subtotal, closing: 50_000_000n - subtotal },
    issuedAt: new Date("2026-11-01T00:05:00Z"),
    lines: usage,
    notes: [],
  };
}

/** Median ms of rendering a `lines`-line invoice's PDF (after a warm-up), and its size. */
export async function invoicePdfBench(lines: number, runs = 7): Promise<{ p50Ms: number; bytes: number }> {
  const invoice = benchInvoice(lines);
  let bytes = (await renderInvoicePdf(invoice)).length;
  const times: number[] = [];
  for (let i = 0; i < runs; i++) {
    const started = performance.now();
    bytes = (await renderInvoicePdf(invoice)).length;
    times.push(performance.now() - started);
  }
  return { p50Ms: round(median(times), 1), bytes };
}
