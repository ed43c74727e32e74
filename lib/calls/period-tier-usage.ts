import { sql } from "drizzle-orm";
import type { Executor } from "@/lib/db/client";
import { readNamedPeriodLines, type GroupPeriod, type UsageLine } from "./period-usage";

// A reseller's tier charges of a period, as the usage lines its invoice bills (lib/invoices/tier-usage.ts,
// docs/contract.md "Reseller tiers", "Invoices by tier"). Read beside the calls, so here with the calls' other reads.

/** The words before a destination's name on a line of tier charges (what the account owes for its customers' calls). */
export const RESOLD_LINE_PREFIX = "Customers' calls: ";

/**
 * Each period's group's tier charges (what it pays its parent for its subtree's calls that started in the period), as
 * usage lines per direction and the group's own matched prefix, named from its own sell deck in force at the period's
 * end with RESOLD_LINE_PREFIX. Read from call_tier_charges (index on tier and start time) beside each call (for the
 * direction); unrated tier rows (price 0) make the "Unrated calls" line. Groups without tier charges get none.
 */
export async function readPeriodsTierUsage(
  db: Executor,
  periods: readonly GroupPeriod[],
): Promise<Map<string, UsageLine[]>> {
  return readNamedPeriodLines(
    db,
    periods,
    null,
    sql`lines AS (
          SELECT p.g, x.direction, x.prefix, count(*)::text AS calls, sum(x.bill)::text AS seconds,
                 sum(x.price)::text AS amount
          FROM p CROSS JOIN LATERAL (
            SELECT c.direction, CASE WHEN t.rated THEN t.matched_prefix END AS prefix, t.bill_duration AS bill,
                   t.price_micros AS price
            FROM call_tier_charges t
            JOIN calls c ON c.billing_group_id = t.billing_group_id AND c.start_time = t.start_time AND c.id = t.call_id
            WHERE t.tier_group_id = p.g AND t.start_time >= p.s AND t.start_time < p.e
          ) AS x
          GROUP BY p.g, x.direction, x.prefix
        )`,
    // An unrated tier row stays "Unrated calls" (price 0): the name says nothing was charged.
    (prefix, description) => (prefix === null ? null : `${RESOLD_LINE_PREFIX}${description ?? `Prefix ${prefix}`}`),
  );
}
