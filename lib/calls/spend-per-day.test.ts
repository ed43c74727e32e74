import { sql } from "drizzle-orm";
import { beforeAll, expect, it } from "vitest";
import type { DbHandle } from "@/lib/db/client";
import { createBillingGroup } from "@/lib/billing/groups";
import { describeOnEngines } from "@/lib/testing/describe-on-engines";
import { spendPerDay } from "./spend-per-day";

async function insertCall(
  handle: DbHandle,
  groupId: string,
  currency: string,
  startIso: string,
  priceMicros: bigint,
  buyCostMicros: bigint | null = null,
) {
  await handle.db
    .execute(sql`INSERT INTO calls (uuid, billing_group_id, direction, from_number, to_number, start_time, end_time,
      duration, bill_duration, currency, rated, price_micros, buy_cost_micros)
    VALUES (${crypto.randomUUID()}, ${groupId}, 'outbound', '100', '4420', ${startIso}::timestamptz, ${startIso}::timestamptz,
      10, 10, ${currency}, true, ${priceMicros}, ${buyCostMicros})`);
}

describeOnEngines("spend per day", (handle) => {
  let usd: string;
  let eur: string;
  const now = new Date("2026-11-21T10:00:00Z");

  beforeAll(async () => {
    usd = (await createBillingGroup(handle().db, { name: "A", currency: "USD" })).id;
    eur = (await createBillingGroup(handle().db, { name: "B", currency: "EUR" })).id;
    await insertCall(handle(), usd, "USD", "2026-11-21T00:00:00Z", 1_000_001n);
    await insertCall(handle(), usd, "USD", "2026-11-21T09:59:59Z", 2n);
    await insertCall(handle(), usd, "USD", "2026-11-20T23:59:59.999Z", 500_000n);
    await insertCall(handle(), usd, "USD", "2026-10-22T23:59:59Z", 7n); // 31st day back: outside
    await insertCall(handle(), usd, "USD", "2026-10-23T00:00:00Z", 3n); // 30th day back: inside
    await insertCall(handle(), eur, "EUR", "2026-11-19T12:00:00Z", 42n);
    await insertCall(handle(), eur, "EUR", "2026-11-19T13:00:00Z", 10n, 25n); // a loss
    await insertCall(handle(), eur, "EUR", "2026-11-19T14:00:00Z", 100n, 40n);
  });

  it("sums exact micros per UTC day of the principal's group, zero-filling the 30 days", async () => {
    const [series, ...rest] = await spendPerDay(handle().db, { billingGroupId: usd }, { now });
    expect(rest).toEqual([]);
    expect(series.currency).toBe("USD");
    expect(series.days).toHaveLength(30);
    expect(series.days[0]).toEqual({ day: "2026-10-23", spendMicros: 3n, calls: 1 });
    expect(series.days[28]).toEqual({ day: "2026-11-20", spendMicros: 500_000n, calls: 1 });
    expect(series.days[29]).toEqual({ day: "2026-11-21", spendMicros: 1_000_003n, calls: 2 });
    expect(series.totalMicros).toBe(1_500_006n);
  });

  it("gives a platform key one series per currency across groups", async () => {
    const series = await spendPerDay(handle().db, { billingGroupId: null }, { now });
    expect(series.map((s) => [s.currency, s.totalMicros])).toEqual([
      ["EUR", 152n],
      ["USD", 1_500_006n],
    ]);
  });

  it("never shows another group's calls", async () => {
    const [series] = await spendPerDay(handle().db, { billingGroupId: eur }, { now });
    expect(series.totalMicros).toBe(152n);
    expect(series.cost).toBeUndefined(); // only when asked: cost sessions
  });

  it("adds buy cost and exact margin over the calls that have a buy cost, when asked", async () => {
    const [series] = await spendPerDay(handle().db, { billingGroupId: eur }, { now, withCost: true });
    expect(series.cost).toEqual({ buyCostMicros: 65n, marginMicros: 45n }); // (10-25) + (100-40); the 42 without cost is not in it
  });
});
