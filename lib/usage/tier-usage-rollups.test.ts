import { sql } from "drizzle-orm";
import { afterAll, beforeAll, expect, it, vi } from "vitest";
import type { Principal } from "@/lib/auth/principal";
import { archiveCalls } from "@/lib/calls/archive-calls";
import { callReads } from "@/lib/calls/call-store";
import { queryRows } from "@/lib/db/client";
import { historyCallReads } from "@/lib/history/history-call-reads";
import { moveMonth } from "@/lib/history/move-month";
import { openTestHistoryStore } from "@/lib/history/testing/history-test-store";
import { ingestCdrs } from "@/lib/ingest/ingest-cdrs";
import { answeredCdr } from "@/lib/ingest/testing/answered-cdr";
import { importSellRates } from "@/lib/rating/import-rates";
import { parseRateCsv } from "@/lib/rating/rate-csv";
import { rerateCalls } from "@/lib/rating/rerate";
import { describeOnEngines } from "@/lib/testing/describe-on-engines";
import { MOVE_AFTER, NOVEMBER, NOW, seedTiers } from "@/lib/testing/history-months";
import { testPrincipal } from "@/lib/testing/test-principal";
import type { UsageGroupBy } from "./schemas";
import { summarizeUsage, type UsageFilters } from "./summarize-usage";

// The tier rollups (migration 0035, docs/contract.md "Reseller tiers", "Usage by tier"): a reseller's usage over its
// subtree reads tier_usage_hourly/quarter/daily for whole buckets, so its cost survives archiving and the move to the
// history tier, and the rollups follow ingest (concurrent too) and re-rating exactly.

const COST = ["calls:read", "calls:read_cost"] as const;

describeOnEngines("tier usage rollups", (handle) => {
  const db = () => handle().db;
  let store: Awaited<ReturnType<typeof openTestHistoryStore>>;
  let g: { r: string; s: string; c: string };

  beforeAll(async () => {
    vi.useFakeTimers({ toFake: ["Date"] });
    vi.setSystemTime(new Date(NOW));
    store = await openTestHistoryStore();
    g = await seedTiers(db());
  });
  afterAll(async () => {
    vi.useRealTimers();
    await store?.drop();
  });

  const reseller = (own: string, subtree: string[]): Principal => ({
    ...testPrincipal(own, [...COST]),
    reachGroupIds: subtree,
  });
  /** R's and S's reports by day and by destination over [gte, lte], read across the history tier. */
  const reports = async (startTimeGte: Date, startTimeLte: Date) => {
    const reads = historyCallReads(callReads(db()), db(), store);
    const filters: UsageFilters = { startTimeGte, startTimeLte };
    const out = [];
    for (const p of [reseller(g.r, [g.r, g.s, g.c]), reseller(g.s, [g.s, g.c])])
      for (const groupBy of ["day", "destination"] as UsageGroupBy[])
        out.push(await summarizeUsage(db(), p, filters, { groupBy }, reads));
    return out;
  };
  const costOf = (report: { totals: unknown[] }) => (report.totals[0] as { buyCost?: number }).buyCost ?? 0;

  /** Each tier rollup's totals per tier from `from` on, and the same summed from call_tier_charges and calls. */
  async function totals(from: string) {
    const rollup = (table: string, bucket: string) =>
      queryRows<Record<string, string>>(
        db(),
        sql`SELECT tier_group_id AS tier, sum(calls)::text AS calls, sum(billed_seconds)::text AS billed,
              sum(price_micros)::text AS price, sum(buy_cost_micros)::text AS cost, sum(margin_micros)::text AS margin
            FROM ${sql.raw(table)} WHERE ${sql.raw(bucket)} >= ${from}::timestamptz GROUP BY 1 ORDER BY 1`,
      );
    // By tier and account (migration 0039, the reseller's report by customer): cost and margin per descendant, by
    // hour; and by day with the counts beside them.
    const byAccount = (table: string) =>
      queryRows<Record<string, string>>(
        db(),
        sql`SELECT tier_group_id AS tier, billing_group_id AS account, sum(buy_cost_micros)::text AS cost,
              sum(margin_micros)::text AS margin
            FROM ${sql.raw(table)} WHERE hour >= ${from}::timestamptz GROUP BY 1, 2 ORDER BY 1, 2`,
      );
    const byAccountDaily = await queryRows<Record<string, string>>(
      db(),
      sql`SELECT tier_group_id AS tier, billing_group_id AS account, sum(calls)::text AS calls,
            sum(answered_calls)::text AS answered, sum(billed_seconds)::text AS billed, sum(price_micros)::text AS price,
            sum(buy_cost_micros)::text AS cost, sum(margin_micros)::text AS margin
          FROM tier_account_usage_daily WHERE day >= ${from}::timestamptz GROUP BY 1, 2 ORDER BY 1, 2`,
    );
    const directByAccount = await queryRows<Record<string, string>>(
      db(),
      sql`SELECT t.tier_group_id AS tier, c.billing_group_id AS account, count(*)::text AS calls,
            count(c.answer_time)::text AS answered, sum(c.bill_duration)::text AS billed,
            sum(c.price_micros)::text AS price, sum(t.price_micros)::text AS cost,
            sum(CASE WHEN t.depth = 1 THEN c.price_micros ELSE s.price_micros END - t.price_micros)::text AS margin
          FROM call_tier_charges t
          JOIN calls c ON c.billing_group_id = t.billing_group_id AND c.start_time = t.start_time AND c.id = t.call_id
          LEFT JOIN call_tier_charges s ON s.billing_group_id = t.billing_group_id AND s.start_time = t.start_time
            AND s.call_id = t.call_id AND s.depth = t.depth - 1
          WHERE t.start_time >= ${from}::timestamptz GROUP BY 1, 2 ORDER BY 1, 2`,
    );
    // Per tier: the per-account sums above added up (one query of the charges, not two).
    const direct: Record<string, string>[] = [];
    for (const { tier, calls, billed, price, cost, margin } of directByAccount) {
      const row = { tier, calls, billed, price, cost, margin };
      const last = direct.at(-1);
      if (last?.tier !== tier) direct.push(row);
      else
        for (const k of ["calls", "billed", "price", "cost", "margin"] as const)
          last[k] = String(BigInt(last[k]) + BigInt(row[k]));
    }
    // By tier, account and week or month (migration 0040): the daily rows summed by their Monday or month, every day.
    const coarser = (table: string, bucket: string) =>
      queryRows<Record<string, string>>(
        db(),
        sql`SELECT tier_group_id AS tier, billing_group_id AS account, ${sql.raw(bucket)} AS bucket, sum(calls)::text AS calls,
              sum(answered_calls)::text AS answered, sum(billed_seconds)::text AS billed, sum(price_micros)::text AS price,
              sum(buy_cost_micros)::text AS cost, sum(margin_micros)::text AS margin
            FROM ${sql.raw(table)}
            GROUP BY 1, 2, 3 HAVING sum(calls) <> 0 OR sum(price_micros) <> 0 OR sum(buy_cost_micros) <> 0 ORDER BY 1, 2, 3`,
      );
    return {
      direct,
      directByAccount,
      byAccountWeekly: await coarser("tier_account_usage_weekly", "week"),
      byAccountDailyByWeek: await coarser(
        "tier_account_usage_daily",
        "date_bin('7 days', day, timestamptz '2000-01-03 00:00:00+00')",
      ),
      byAccountMonthly: await coarser("tier_account_usage_monthly", "month"),
      byAccountDailyByMonth: await coarser("tier_account_usage_daily", "date_trunc('month', day, 'UTC')"),
      byAccount: await byAccount("tier_account_usage_hourly"),
      byAccountDaily,
      hourly: await rollup("tier_usage_hourly", "hour"),
      quarter: await rollup("tier_usage_quarter", "quarter"),
      daily: await rollup("tier_usage_daily", "day"),
    };
  }
  const expectExact = async (from: string) => {
    const t = await totals(from);
    expect(t.direct.length).toBeGreaterThan(0);
    expect(t.hourly).toEqual(t.direct);
    expect(t.quarter).toEqual(t.direct);
    expect(t.daily).toEqual(t.direct);
    expect(t.directByAccount.length).toBeGreaterThan(0);
    expect(t.byAccount).toEqual(
      t.directByAccount.map(({ tier, account, cost, margin }) => ({ tier, account, cost, margin })),
    );
    expect(t.byAccountDaily).toEqual(t.directByAccount);
    expect(t.byAccountWeekly.length).toBeGreaterThan(0);
    expect(t.byAccountWeekly).toEqual(t.byAccountDailyByWeek);
    expect(t.byAccountMonthly.length).toBeGreaterThan(0);
    expect(t.byAccountMonthly).toEqual(t.byAccountDailyByMonth);
  };

  it("holds each tier's subtree exactly as its charges and calls sum, after ingest", async () => {
    await expectExact("2000-01-01T00:00:00Z");
  });

  it("moves with a re-rating of the calls and of the tiers' charges", async () => {
    const december = new Date("2030-12-01T00:00:00Z");
    const before = await totals(december.toISOString());
    // C pays S more, S pays R more from December: the call's price, S's charge, and both margins move.
    for (const [group, rate] of [
      [g.c, "1.5"],
      [g.s, "0.9"],
    ] as const)
      await importSellRates(db(), group, parseRateCsv(`prefix,rate,increment\n1,${rate},1/1\n`), undefined, {
        effectiveFrom: december,
      });
    await rerateCalls(db(), { since: december });
    const after = await totals(december.toISOString());
    expect(after.hourly).not.toEqual(before.hourly);
    await expectExact(december.toISOString());
  });

  // On PostgreSQL the two transactions upsert the same tier rows (ON CONFLICT); on PGlite they queue.
  it("keeps exact sums when two ingests write the same tier hour at once", async () => {
    const batch = (k: number) =>
      Array.from({ length: 20 }, (_, i) =>
        answeredCdr({
          uuid: `tier-race-${k}-${i}`,
          billingGroupId: g.c,
          startMs: Date.parse("2031-01-10T10:00:00Z") + (i * 2 + k) * 60_000,
          seconds: 30 + i,
          to: "12125550100",
        }),
      );
    await Promise.all([ingestCdrs(db(), batch(0)), ingestCdrs(db(), batch(1))]);
    const t = await totals("2031-01-01T00:00:00Z");
    expect(t.direct.map((row) => row.calls)).toEqual(["40", "40"]);
    await expectExact("2031-01-01T00:00:00Z");
  });

  it("keeps a reseller's cost over an archived day", async () => {
    const day = [new Date("2030-11-03T00:00:00Z"), new Date("2030-11-03T23:59:59.999Z")] as const;
    const before = await reports(...day);
    expect(costOf(before[0])).toBeGreaterThan(0);
    expect(costOf(before[2])).toBeGreaterThan(0);
    expect(await archiveCalls(db(), { from: day[0], before: new Date("2030-11-04T00:00:00Z") })).toBe(2);
    expect(await reports(...day)).toEqual(before);
  });

  it("keeps a reseller's cost over a month moved to the history tier", async () => {
    const month = [NOVEMBER, new Date("2030-11-30T23:59:59.999Z")] as const;
    const before = await reports(...month);
    expect(costOf(before[0])).toBeGreaterThan(0);
    expect(
      await moveMonth(db(), store, { month: NOVEMBER, moveAfterMonths: MOVE_AFTER, now: new Date(NOW) }),
    ).toMatchObject({ state: "removed" });
    expect(await reports(...month)).toEqual(before);
  });
});
