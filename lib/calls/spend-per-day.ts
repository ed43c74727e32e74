import type { Principal } from "@/lib/auth/principal";
import type { Executor } from "@/lib/db/client";
import { addDays, dayInZone, zonedDays } from "@/lib/time/zoned-time";
import { readUsageSums, type UsageSums } from "./usage-sums";

export interface DaySpend {
  /** yyyy-mm-dd in the series' zone */
  day: string;
  spendMicros: bigint;
  calls: number;
}

/** One series per currency (a platform key sees groups in several), every day present. */
export interface SpendSeries {
  currency: string;
  days: DaySpend[];
  totalMicros: bigint;
  /** The calendar month holding today (in the same zone), to date: the same sum GET /v1/usage gives for it. */
  month: { key: string; spendMicros: bigint; calls: number };
  /** Buy cost and margin (price - buy cost) of the calls that have a buy cost; filled only when asked (cost sessions). */
  cost?: { buyCostMicros: bigint; marginMicros: bigint };
}

export interface SpendOptions {
  days?: number;
  now?: Date;
  withCost?: boolean;
  /** IANA zone the days and the month are cut in: the account's own (billing_groups.time_zone). Default "UTC". */
  timeZone?: string;
}

/**
 * Sell-side spend (sum of call prices) per day of `timeZone` over the last `days` days including today, and this
 * month's, within what the principal may see: its billing group, or every group for a platform key. The sums are
 * GET /v1/usage's (readUsageSums: rollups, exact in any zone, +05:30 and +05:45 included), so a day or a month here
 * is the same figure as that report's in the same zone.
 */
export async function spendPerDay(
  db: Executor,
  principal: Pick<Principal, "billingGroupId">,
  options: SpendOptions = {},
): Promise<SpendSeries[]> {
  const days = options.days ?? 30;
  const timeZone = options.timeZone ?? "UTC";
  const today = dayInZone(options.now ?? new Date(), timeZone);
  const first = addDays(today, -(days - 1));
  const month = today.slice(0, 7);
  const nextMonth = addDays(`${month}-28`, 4).slice(0, 7);
  const groups = principal.billingGroupId === null ? null : [principal.billingGroupId];
  const read = (groupBy: "day" | "month", from: string, until: string) => {
    const range = zonedDays(from, until, timeZone);
    return readUsageSums(db, {
      groupBy,
      timeZone,
      groups,
      filters: { startTimeGte: range.gte, startTimeLte: range.lte },
    });
  };
  // One after the other: each is a transaction (the embedded engine has one connection).
  const perDay = await read("day", first, today);
  const perMonth = await read("month", `${month}-01`, addDays(`${nextMonth}-01`, -1));
  const currencies = [...new Set([...perDay, ...perMonth].map((r) => r.currency))].sort();
  return currencies.map((currency) => {
    const byDay = new Map(perDay.filter((r) => r.currency === currency).map((r) => [r.key, r]));
    const series: DaySpend[] = [];
    let totalMicros = 0n;
    const cost = { buyCostMicros: 0n, marginMicros: 0n };
    for (let i = days - 1; i >= 0; i--) {
      const day = addDays(today, -i);
      const v: UsageSums | undefined = byDay.get(day);
      series.push({ day, spendMicros: v?.priceMicros ?? 0n, calls: Number(v?.calls ?? 0n) });
      totalMicros += v?.priceMicros ?? 0n;
      cost.buyCostMicros += v?.buyCostMicros ?? 0n;
      cost.marginMicros += v?.marginMicros ?? 0n;
    }
    const m = perMonth.find((r) => r.currency === currency && r.key === month);
    const monthSpend = { key: month, spendMicros: m?.priceMicros ?? 0n, calls: Number(m?.calls ?? 0n) };
    return options.withCost
      ? { currency, days: series, totalMicros, month: monthSpend, cost }
      : { currency, days: series, totalMicros, month: monthSpend };
  });
}
