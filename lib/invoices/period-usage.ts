import { sql, type SQL } from "drizzle-orm";
import { queryRows, type Executor } from "@/lib/db/client";

// A period's usage per direction and destination, from the usage rollups (docs/contract.md §10): usage_daily holds
// whole UTC days per (direction, matched prefix), kept exact by the triggers on calls in every writing transaction
// (lib/usage/triggers.ts); the parts of UTC days that a zone's month boundary cuts (at most one at each end) are
// read from calls, by the group's primary-key range. So the sum of the lines is exactly the sum of the prices of the
// calls that started in the period, and reading a month costs some 31 rollup rows per destination.

const DAY_MS = 86_400_000;

export interface UsageLine {
  direction: "inbound" | "outbound";
  /** The matched prefix; null for calls no rate matched (price 0). */
  prefix: string | null;
  /** The prefix's description on the group's sell card in force at the period's end, if any. */
  rateDescription: string | null;
  calls: number;
  billedSeconds: number;
  amountMicros: bigint;
}

/** Which instants come from usage_daily (whole UTC days) and which from calls. */
export function splitPeriod(
  start: Date,
  end: Date,
): { days?: { from: Date; until: Date }; callRanges: [Date, Date][] } {
  const from = new Date(Math.ceil(start.getTime() / DAY_MS) * DAY_MS);
  const until = new Date(Math.floor(end.getTime() / DAY_MS) * DAY_MS);
  if (from >= until) return { callRanges: [[start, end]] };
  const callRanges: [Date, Date][] = [];
  if (start < from) callRanges.push([start, from]);
  if (until < end) callRanges.push([until, end]);
  return { days: { from, until }, callRanges };
}

const iso = (d: Date) => d.toISOString();

/** The usage lines of calls of `groupId` that started in [start, end), ordered by direction and prefix. */
export async function readPeriodUsage(db: Executor, groupId: string, start: Date, end: Date): Promise<UsageLine[]> {
  const { days, callRanges } = splitPeriod(start, end);
  const parts: SQL[] = [];
  if (days)
    parts.push(sql`SELECT direction, matched_prefix, calls, billed_seconds, price_micros FROM usage_daily
                   WHERE billing_group_id = ${groupId} AND day >= ${iso(days.from)}::timestamptz AND day < ${iso(days.until)}::timestamptz`);
  for (const [gte, lt] of callRanges)
    parts.push(sql`SELECT direction, matched_prefix, 1::bigint, bill_duration::bigint, price_micros FROM calls
                   WHERE billing_group_id = ${groupId} AND start_time >= ${iso(gte)}::timestamptz AND start_time < ${iso(lt)}::timestamptz`);
  const rows = await queryRows<{
    direction: "inbound" | "outbound";
    prefix: string | null;
    description: string | null;
    calls: string;
    seconds: string;
    amount: string;
  }>(
    db,
    sql`SELECT u.direction, u.prefix, r.description, u.calls, u.seconds, u.amount FROM (
          SELECT direction, matched_prefix AS prefix, sum(calls)::text AS calls, sum(billed_seconds)::text AS seconds,
                 sum(price_micros)::text AS amount
          FROM (${sql.join(parts, sql` UNION ALL `)}) AS x (direction, matched_prefix, calls, billed_seconds, price_micros)
          GROUP BY direction, matched_prefix
          HAVING sum(calls) <> 0 OR sum(price_micros) <> 0
        ) u
        LEFT JOIN LATERAL (
          SELECT s.description FROM sell_rates s JOIN rate_decks d ON d.id = s.deck_id
          WHERE s.billing_group_id = ${groupId} AND s.prefix = u.prefix AND d.effective_from < ${iso(end)}::timestamptz
          ORDER BY d.effective_from DESC LIMIT 1
        ) r ON true
        ORDER BY u.direction, u.prefix COLLATE "C" NULLS LAST`,
  );
  return rows.map((r) => ({
    direction: r.direction,
    prefix: r.prefix,
    rateDescription: r.description,
    calls: Number(r.calls),
    billedSeconds: Number(r.seconds),
    amountMicros: BigInt(r.amount),
  }));
}
