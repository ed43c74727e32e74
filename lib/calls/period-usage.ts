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

export interface GroupPeriod {
  groupId: string;
  start: Date;
  end: Date;
}

/**
 * Which instants come from usage_daily (whole UTC days [from, until)) and which from calls: [start, from) and
 * [until, end). A period shorter than a day reads calls only (from = until = end).
 */
export function splitPeriod(start: Date, end: Date): { from: Date; until: Date } {
  const from = new Date(Math.ceil(start.getTime() / DAY_MS) * DAY_MS);
  const until = new Date(Math.floor(end.getTime() / DAY_MS) * DAY_MS);
  return from < until ? { from, until } : { from: end, until: end };
}

/** The usage lines of each period's group, by group id, each ordered by direction and prefix. */
export async function readPeriodsUsage(
  db: Executor,
  periods: readonly GroupPeriod[],
): Promise<Map<string, UsageLine[]>> {
  return readNamedPeriodLines(
    db,
    periods,
    { columns: ", f timestamptz, u timestamptz", of: (p) => splitPeriodText(p) },
    sql`-- LATERAL: one index range per group (the rollup's key, calls' primary key), never a scan of the table.
        x AS (
          SELECT p.g, d.direction, d.matched_prefix AS prefix, d.calls, d.billed_seconds, d.price_micros
          FROM p CROSS JOIN LATERAL (
            SELECT direction, matched_prefix, calls, billed_seconds, price_micros FROM usage_daily
            WHERE billing_group_id = p.g AND day >= p.f AND day < p.u) d
          UNION ALL
          SELECT p.g, c.direction, c.matched_prefix, 1::bigint, c.bill_duration::bigint, c.price_micros
          FROM p CROSS JOIN LATERAL (
            SELECT direction, matched_prefix, bill_duration, price_micros FROM calls
            WHERE billing_group_id = p.g AND start_time >= p.s AND start_time < p.f) c
          UNION ALL
          SELECT p.g, c.direction, c.matched_prefix, 1::bigint, c.bill_duration::bigint, c.price_micros
          FROM p CROSS JOIN LATERAL (
            SELECT direction, matched_prefix, bill_duration, price_micros FROM calls
            WHERE billing_group_id = p.g AND start_time >= p.u AND start_time < p.e) c
        ), lines AS (
          SELECT g, direction, prefix, sum(calls)::text AS calls, sum(billed_seconds)::text AS seconds,
                 sum(price_micros)::text AS amount
          FROM x GROUP BY g, direction, prefix
          HAVING sum(calls) <> 0 OR sum(price_micros) <> 0
        )`,
    (_prefix, description) => description,
  );
}

function splitPeriodText(p: GroupPeriod): Record<string, string> {
  const { from, until } = splitPeriod(p.start, p.end);
  return { f: from.toISOString(), u: until.toISOString() };
}

/**
 * The one shape of a period's invoice lines (the usage lines here, a reseller's tier charges in period-tier-usage.ts):
 * `p` holds each period (g, s, e and `extra.columns`), `ctes` ends in `lines(g, direction, prefix, calls, seconds,
 * amount)`; each line is named from its group's sell deck in force at its period's end, through `name`.
 */
export async function readNamedPeriodLines(
  db: Executor,
  periods: readonly GroupPeriod[],
  extra: { columns: string; of: (p: GroupPeriod) => Record<string, string> } | null,
  ctes: SQL,
  name: (prefix: string | null, description: string | null) => string | null,
): Promise<Map<string, UsageLine[]>> {
  const out = new Map<string, UsageLine[]>(periods.map((p) => [p.groupId, []]));
  if (periods.length === 0) return out;
  const json = JSON.stringify(
    periods.map((p) => ({ g: p.groupId, s: p.start.toISOString(), e: p.end.toISOString(), ...extra?.of(p) })),
  );
  const rows = await queryRows<{
    g: string;
    direction: "inbound" | "outbound";
    prefix: string | null;
    description: string | null;
    calls: string;
    seconds: string;
    amount: string;
  }>(
    db,
    sql`WITH p AS MATERIALIZED (
          SELECT * FROM json_to_recordset(${json}::json) AS p(g text, s timestamptz, e timestamptz${sql.raw(extra?.columns ?? "")})
        ), ${ctes}
        SELECT l.g, l.direction, l.prefix, r.description, l.calls, l.seconds, l.amount
        FROM lines l JOIN p ON p.g = l.g
        LEFT JOIN LATERAL (
          SELECT s.description FROM sell_rates s JOIN rate_decks d ON d.id = s.deck_id
          WHERE s.billing_group_id = l.g AND s.prefix = l.prefix AND d.effective_from < p.e
          ORDER BY d.effective_from DESC LIMIT 1
        ) r ON true
        ORDER BY l.g, l.direction, l.prefix COLLATE "C" NULLS LAST`,
  );
  for (const r of rows)
    out.get(r.g)?.push({
      direction: r.direction,
      prefix: r.prefix,
      rateDescription: name(r.prefix, r.description),
      calls: Number(r.calls),
      billedSeconds: Number(r.seconds),
      amountMicros: BigInt(r.amount),
    });
  return out;
}

/** The usage lines of calls of `groupId` that started in [start, end), ordered by direction and prefix. */
export async function readPeriodUsage(db: Executor, groupId: string, start: Date, end: Date): Promise<UsageLine[]> {
  return (await readPeriodsUsage(db, [{ groupId, start, end }])).get(groupId) ?? [];
}
