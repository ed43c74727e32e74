import { sql } from "drizzle-orm";
import { historySettings } from "@/lib/config/env";
import { utcMonthStart } from "@/lib/db/call-partitions";
import { queryRows, type Executor } from "@/lib/db/client";

/**
 * Of these call start instants (epoch ms), the UTC months moved to the history tier (state removed, or dropped since), as
 * each month's first instant: ingest refuses a late CDR of one (docs/contract.md "History tier"). Empty without
 * HISTORY_CLICKHOUSE_URL, and without a query when every start is in the current UTC month (never moved).
 */
export async function movedMonthsOf(db: Executor, startsMs: Iterable<number>, now = Date.now()): Promise<Set<number>> {
  if (!historySettings()) return new Set();
  const current = utcMonthStart(now);
  const months = [...new Set([...startsMs].filter((ms) => ms < current).map((ms) => utcMonthStart(ms)))];
  if (months.length === 0) return new Set();
  const isos = JSON.stringify(months.map((ms) => new Date(ms).toISOString()));
  const moved = await queryRows<{ at: string }>(
    db,
    sql`SELECT to_char(month AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"Z"') AS at FROM history_moves
        WHERE state IN ('removed', 'dropped') AND month IN (SELECT m::timestamptz FROM json_array_elements_text(${isos}::json) AS m)`,
  );
  return new Set(moved.map((m) => Date.parse(m.at)));
}

/** The moved months (state removed or dropped) that end after `since`, as "2030-11": what a re-rating from `since` would reach. */
export async function movedMonthsAfter(db: Executor, since: Date): Promise<string[]> {
  const rows = await queryRows<{ month: string }>(
    db,
    sql`SELECT to_char(month AT TIME ZONE 'UTC', 'YYYY-MM') AS month FROM history_moves
        WHERE state IN ('removed', 'dropped') AND month + interval '1 month' > ${since.toISOString()}::timestamptz ORDER BY 1`,
  );
  return rows.map((r) => r.month);
}
