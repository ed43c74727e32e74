import { sql } from "drizzle-orm";
import { beforeAll, expect, it } from "vitest";
import type { Principal } from "@/lib/auth/principal";
import type { Scope } from "@/lib/auth/scopes";
import { createBillingGroup } from "@/lib/billing/groups";
import { readUsageSums } from "@/lib/calls/usage-sums";
import { queryRows } from "@/lib/db/client";
import { ingestCdrs } from "@/lib/ingest/ingest-cdrs";
import { nativeCdrSchema } from "@/lib/ingest/schemas";
import { formatMicros } from "@/lib/money/micros";
import { importBuyRates, importSellRates } from "@/lib/rating/import-rates";
import { parseRateCsv } from "@/lib/rating/rate-csv";
import { createSupplier } from "@/lib/rating/suppliers";
import { describeOnEngines } from "@/lib/testing/describe-on-engines";
import { testPrincipal } from "@/lib/testing/test-principal";
import type { UsageGroupBy, UsageReport } from "./schemas";
import { summarizeUsage, type UsageFilters } from "./summarize-usage";

// GET /v1/usage for a reseller's cost view (docs/contract.md "Reseller tiers", "Usage by tier"): buy cost and margin
// are the tier's own, over its subtree, and add up with the other tiers' to the price minus the carrier's cost.

const COST: Scope[] = ["calls:read", "calls:read_cost"];
const OLD = new Date("2020-01-01T00:00:00Z");
// R1 (root reseller) > R2 (sub-reseller) > C; R1 > K (R1's direct customer). R2 has no 49: unrated at R2.
const DECKS = {
  supplier: "prefix,rate,increment\n44,0.004,1/1\n49,0.009,1/1",
  r1: "prefix,rate,increment,connectFee\n44,0.010,60/60,\n49,0.020,30/6,0.001",
  r2: "prefix,rate,increment,connectFee,minCharge\n44,0.015,30/6,,0.009",
  c: "prefix,rate,increment,description\n44,0.0213,1/1,UK\n49,0.050,6/6,Germany",
  k: "prefix,rate,increment,description\n44,0.030,6/6,UK\n49,0.070,1/1,Germany",
};

describeOnEngines("usage by tier: a reseller's buy cost and margin are its own", (handle) => {
  const db = () => handle().db;
  let ids: { r1: string; r2: string; c: string; k: string };
  const reseller = (own: string, subtree: string[]): Principal => ({
    ...testPrincipal(own, COST),
    reachGroupIds: subtree,
  });

  beforeAll(async () => {
    const mk = async (name: string, deck: string, parentId?: string) => {
      const g = await createBillingGroup(db(), {
        name,
        currency: "EUR",
        openingBalanceMicros: 10n ** 12n,
        parentId,
      });
      await importSellRates(db(), g.id, parseRateCsv(deck), undefined, { effectiveFrom: OLD });
      return g.id;
    };
    const r1 = await mk("R1", DECKS.r1);
    const r2 = await mk("R2", DECKS.r2, r1);
    const c = await mk("C", DECKS.c, r2);
    const k = await mk("K", DECKS.k, r1);
    ids = { r1, r2, c, k };
    const supplier = await createSupplier(db(), { name: `S-${r1}`, gatewayName: `gw-${r1}` });
    await importBuyRates(db(), supplier.id, parseRateCsv(DECKS.supplier), undefined, { effectiveFrom: OLD });
    // Calls every 7 minutes over two days, so reports cut hours and days; R1 has calls of its own too.
    const cdrs = [c, c, k, r1, r2].flatMap((group, g) =>
      Array.from({ length: 40 }, (_, i) => {
        const start = Date.parse("2025-04-01T20:00:00Z") + (i * 5 + g) * 7 * 60_000 + 1234;
        const answeredMs = i % 6 === 0 ? null : 400 + ((i * 7919 + g * 131) % 280_000);
        return nativeCdrSchema.parse({
          uuid: `usage-tier-${g}-${i}`,
          direction: i % 4 === 0 ? "inbound" : "outbound",
          from: "4930000000",
          to: i % 3 === 0 ? "4915112345678" : "442071234567",
          startTime: new Date(start).toISOString(),
          answerTime: answeredMs === null ? null : new Date(start + 3000).toISOString(),
          endTime: new Date(start + 3000 + (answeredMs ?? 0)).toISOString(),
          billingGroupId: group,
          supplierId: supplier.id,
        });
      }),
    );
    await ingestCdrs(db(), cdrs);
  });

  const report = (p: Principal, groupBy: UsageGroupBy, filters: UsageFilters = {}) =>
    summarizeUsage(db(), p, filters, { groupBy });
  const money = (n: number | undefined) => BigInt(Math.round((n ?? NaN) * 1e6));
  const byKey = (r: UsageReport) =>
    new Map(r.rows.map((row) => [row.key, row as (typeof r.rows)[number] & { buyCost?: number; margin?: number }]));

  /** A tier's buy cost and margin per call account, summed straight from call_tier_charges and calls. */
  async function direct(tier: string, from?: Date, to?: Date) {
    const rows = await queryRows<{ account: string; cost: string; margin: string }>(
      db(),
      sql`SELECT t.billing_group_id AS account, sum(t.price_micros)::text AS cost,
            sum(CASE WHEN t.depth = 1 THEN c.price_micros ELSE s.price_micros END - t.price_micros)::text AS margin
          FROM call_tier_charges t
          JOIN calls c ON c.id = t.call_id
          LEFT JOIN call_tier_charges s ON s.call_id = t.call_id AND s.depth = t.depth - 1
          WHERE t.tier_group_id = ${tier}
            AND t.start_time >= ${(from ?? new Date(0)).toISOString()}::timestamptz
            AND t.start_time <= ${(to ?? new Date("2100-01-01")).toISOString()}::timestamptz
          GROUP BY 1`,
    );
    return new Map(rows.map((r) => [r.account, { cost: BigInt(r.cost), margin: BigInt(r.margin) }]));
  }

  it("gives a reseller its own tier's buy cost and margin per account, as call_tier_charges sum them", async () => {
    const r1 = reseller(ids.r1, [ids.r1, ids.r2, ids.c, ids.k]);
    const rows = byKey(await report(r1, "account"));
    const expected = await direct(ids.r1);
    expect([...expected.keys()].sort()).toEqual([ids.r2, ids.c, ids.k].sort());
    for (const [account, e] of expected) {
      expect(money(rows.get(account)?.buyCost)).toBe(e.cost);
      expect(money(rows.get(account)?.margin)).toBe(e.margin);
      expect(e.cost).toBeGreaterThan(0n);
    }
    // On its own calls R1 is the customer: no cost of its own, yet the row is there with its price.
    expect(rows.get(ids.r1)?.buyCost).toBe(0);
    expect(rows.get(ids.r1)?.price).toBeGreaterThan(0);
    // The platform's view is the carrier's, unchanged: it differs from R1's.
    const platform = byKey(await report(testPrincipal(null, COST), "account", {}));
    expect(platform.get(ids.c)?.buyCost).not.toBe(rows.get(ids.c)?.buyCost);
  });

  it("adds up: the tiers' margins and the operator's are the price minus the carrier's cost, per account", async () => {
    const platform = byKey(await report(testPrincipal(null, COST), "account"));
    const r1 = byKey(await report(reseller(ids.r1, [ids.r1, ids.r2, ids.c, ids.k]), "account"));
    const r2 = byKey(await report(reseller(ids.r2, [ids.r2, ids.c]), "account"));
    for (const account of [ids.c, ids.k]) {
      const p = platform.get(account)!;
      const tiers = account === ids.c ? [r2.get(account)!, r1.get(account)!] : [r1.get(account)!];
      // The operator's own margin: what R1 pays it minus the carrier's cost.
      const operatorMargin = money(tiers.at(-1)!.buyCost) - money(p.buyCost);
      const sum = tiers.reduce((s, t) => s + money(t.margin), operatorMargin);
      expect(sum).toBe(money(p.margin));
      // Each tier sells to the one below at what that one buys for.
      if (account === ids.c)
        expect(money(r2.get(account)!.buyCost) + money(r2.get(account)!.margin)).toBe(money(p.price));
    }
  });

  it("cuts days and ragged bounds like the counts, by day, destination and direction", async () => {
    const from = new Date("2025-04-01T21:17:00Z");
    const to = new Date("2025-04-02T09:43:10Z");
    const r1p = reseller(ids.r1, [ids.r1, ids.r2, ids.c, ids.k]);
    const expected = await direct(ids.r1, from, to);
    const total = [...expected.values()].reduce((s, e) => ({ cost: s.cost + e.cost, margin: s.margin + e.margin }), {
      cost: 0n,
      margin: 0n,
    });
    for (const groupBy of ["day", "destination", "direction", "hangupCause"] as const) {
      const r = await report(r1p, groupBy, { startTimeGte: from, startTimeLte: to });
      const t = r.totals[0] as { buyCost?: number; margin?: number };
      expect(formatMicros(money(t.buyCost))).toBe(formatMicros(total.cost));
      expect(money(t.margin)).toBe(total.margin);
    }
    // A sub-reseller sees its own, over its subtree only.
    const r2 = await report(reseller(ids.r2, [ids.r2, ids.c]), "day");
    const r2Expected = await direct(ids.r2);
    expect(money((r2.totals[0] as { buyCost?: number }).buyCost)).toBe(r2Expected.get(ids.c)!.cost);
    expect(byKey(await report(reseller(ids.r2, [ids.r2, ids.c]), "account")).has(ids.k)).toBe(false);
  });

  it("counts a subtree by account from whole months, weeks and days of its tier's rollups and ragged ends per call, as the platform does", async () => {
    // R1's whole reach, no account named: whole UTC months, weeks and days from its tier's rollups; the bounds cut days.
    const r1 = reseller(ids.r1, [ids.r1, ids.r2, ids.c, ids.k]);
    for (const filters of [
      {},
      { startTimeGte: new Date("2025-04-01T21:17:33Z"), startTimeLte: new Date("2025-04-02T13:42:10Z") },
      { startTimeGte: new Date("2025-04-02T00:00:00Z") },
      // A whole week (Monday 03-31 to Monday 04-07) from tier_account_usage_weekly (0040), a day after it, a ragged end.
      { startTimeGte: new Date("2025-03-31T00:00:00Z"), startTimeLte: new Date("2025-04-08T05:00:00Z") },
      // A whole month (April) from tier_account_usage_monthly (0040), a day on each side, a ragged end.
      { startTimeGte: new Date("2025-03-31T00:00:00Z"), startTimeLte: new Date("2025-05-01T05:00:00Z") },
    ] as UsageFilters[]) {
      const tier = byKey(await report(r1, "account", filters));
      const platform = byKey(await report(testPrincipal(null, COST), "account", filters));
      const expected = await direct(ids.r1, filters.startTimeGte, filters.startTimeLte);
      for (const account of [ids.r1, ids.r2, ids.c, ids.k]) {
        const [t, p] = [tier.get(account)!, platform.get(account)!];
        expect(t, `${account} in R1's report`).toBeTruthy();
        expect([t.calls, t.answeredCalls, t.billedSeconds, t.price]).toEqual([
          p.calls,
          p.answeredCalls,
          p.billedSeconds,
          p.price,
        ]);
        const e = expected.get(account) ?? { cost: 0n, margin: 0n };
        expect([money(t.buyCost), money(t.margin)]).toEqual([e.cost, e.margin]);
      }
      // The read view of the same report: the same counts, no cost fields.
      const read = byKey(await report({ ...r1, scopes: new Set(["calls:read"]) }, "account", filters));
      expect(read.get(ids.c)).not.toHaveProperty("buyCost");
      expect(read.get(ids.c)?.calls).toBe(tier.get(ids.c)?.calls);
    }
  });

  it("shows a customer without children no cost at all", async () => {
    const customer = await report(testPrincipal(ids.c, COST), "account");
    expect(customer.rows).toHaveLength(1);
    expect(customer.rows[0]).not.toHaveProperty("buyCost");
    expect(customer.totals[0]).not.toHaveProperty("margin");
  });

  it("takes no cost from another store's sums (the history tier's carry the carrier's) into a tier's report", async () => {
    // What the history tier hands over for a partial hour of a moved month: counts, price and the carrier's cost.
    const moved = {
      startTime: null,
      matchedPrefix: "44",
      direction: "outbound",
      hangupCause: null,
      billingGroupId: ids.c,
      supplierId: null,
      currency: "EUR",
      calls: "3",
      answered: "3",
      unrated: "0",
      billed: "180",
      price: "77000",
      buyCost: "999999",
      margin: "-922999",
    };
    const request = {
      groupBy: "account" as const,
      timeZone: "UTC",
      filters: { startTimeGte: new Date("2030-01-01T00:00:00Z") },
      groups: [ids.r1, ids.r2, ids.c, ids.k],
    };
    const [tierRow] = await readUsageSums(db(), { ...request, tier: ids.r1 }, [moved]);
    expect(tierRow).toMatchObject({ key: ids.c, calls: 3n, priceMicros: 77000n, buyCostMicros: 0n, marginMicros: 0n });
    // The platform's report takes the carrier's cost as it is.
    const [platformRow] = await readUsageSums(db(), request, [moved]);
    expect(platformRow).toMatchObject({ key: ids.c, buyCostMicros: 999999n, marginMicros: -922999n });
  });
});
