import { sql } from "drizzle-orm";
import type { Principal } from "@/lib/auth/principal";
import { andReach, reachOf } from "@/lib/auth/reach";
import { queryRows, type Executor } from "@/lib/db/client";

export interface DaySpend {
  /** yyyy-mm-dd, UTC */
  day: string;
  spendMicros: bigint;
  calls: number;
}

/** One series per currency (a platform key sees groups in several), every day present. */
export interface SpendSeries {
  currency: string;
  days: DaySpend[];
  totalMicros: bigint;
  /** Buy cost and margin (price - buy cost) of the calls that have a buy cost; filled only when asked (cost sessions). */
  cost?: { buyCostMicros: bigint; marginMicros: bigint };
}

export interface SpendOptions {
  days?: number;
  now?: Date;
  withCost?: boolean;
}

const DAY_MS = 24 * 3600 * 1000;

function utcDay(d: Date): string {
  return d.toISOString().slice(0, 10);
}

/**
 * Sell-side spend (sum of call prices) per UTC day over the last `days` days including today,
 * within what the principal may see: its billing group, or every group for a platform key.
 */
export async function spendPerDay(
  db: Executor,
  principal: Pick<Principal, "billingGroupId">,
  options: SpendOptions = {},
): Promise<SpendSeries[]> {
  const days = options.days ?? 30;
  const now = options.now ?? new Date();
  const todayStart = Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate());
  const since = new Date(todayStart - (days - 1) * DAY_MS).toISOString();
  const until = new Date(todayStart + DAY_MS).toISOString();
  const scope = andReach(reachOf(principal), sql.raw("billing_group_id"));
  const rows = await queryRows<{
    day: string;
    currency: string;
    spend: bigint | string;
    calls: number | string;
    buy: bigint | string | null;
    margin: bigint | string | null;
  }>(
    db,
    sql`SELECT to_char(start_time AT TIME ZONE 'UTC', 'YYYY-MM-DD') AS day, currency,
          SUM(price_micros)::bigint AS spend, COUNT(*)::int AS calls,
          COALESCE(SUM(buy_cost_micros), 0)::bigint AS buy,
          COALESCE(SUM(price_micros - buy_cost_micros) FILTER (WHERE buy_cost_micros IS NOT NULL), 0)::bigint AS margin
        FROM calls
        WHERE start_time >= ${since}::timestamptz AND start_time < ${until}::timestamptz ${scope}
        GROUP BY 1, 2`,
  );
  const byCurrency = new Map<string, Map<string, { spend: bigint; calls: number }>>();
  const costs = new Map<string, { buyCostMicros: bigint; marginMicros: bigint }>();
  for (const r of rows) {
    const currency = r.currency.trim();
    if (!byCurrency.has(currency)) byCurrency.set(currency, new Map());
    byCurrency.get(currency)!.set(r.day, { spend: BigInt(r.spend), calls: Number(r.calls) });
    const c = costs.get(currency) ?? { buyCostMicros: 0n, marginMicros: 0n };
    costs.set(currency, {
      buyCostMicros: c.buyCostMicros + BigInt(r.buy ?? 0),
      marginMicros: c.marginMicros + BigInt(r.margin ?? 0),
    });
  }
  return [...byCurrency.keys()].sort().map((currency) => {
    const perDay = byCurrency.get(currency)!;
    const series: DaySpend[] = [];
    let totalMicros = 0n;
    for (let i = days - 1; i >= 0; i--) {
      const day = utcDay(new Date(todayStart - i * DAY_MS));
      const v = perDay.get(day);
      series.push({ day, spendMicros: v?.spend ?? 0n, calls: v?.calls ?? 0 });
      totalMicros += v?.spend ?? 0n;
    }
    return options.withCost
      ? { currency, days: series, totalMicros, cost: costs.get(currency) }
      : { currency, days: series, totalMicros };
  });
}
