import { sql } from "drizzle-orm";
import { utcMonthStart } from "@/lib/db/call-partitions";
import { queryRows, type Executor } from "@/lib/db/client";
import { dropMonthPartition, ensureHistorySchema, type HistoryStore } from "./history-store";
import { monthLabel } from "./move-month";
import { dropTierChargesMonth, ensureTierChargesSchema } from "./history-tier-charges";

// History retention (docs/contract.md "History tier"): a moved month older than HISTORY_RETENTION_MONTHS leaves
// ClickHouse whole (its partition dropped) and its history_moves row becomes `dropped`, so reads stop asking for it.
// Only ClickHouse changes: usage rollups, ledger, invoices and the uuid claims in PostgreSQL stay as they were.

export interface RetainResult {
  /** Months before this one are due (the first month kept), as "2031-01". */
  keptFrom: string;
  /** The months dropped by this run, oldest first, with the calls each had when moved. */
  dropped: { month: string; calls: string }[];
}

/**
 * Drops every moved month (state removed) that ended at least `retentionMonths` whole months before the UTC month of
 * `now`: the partition first, then the state, so a run stopped in between drops it again next time (DROP PARTITION of
 * an absent partition does nothing) and reads meanwhile find nothing there, as after.
 */
export async function retainMonths(
  db: Executor,
  store: HistoryStore,
  options: { retentionMonths: number; now?: Date },
): Promise<RetainResult> {
  const keptFrom = new Date(utcMonthStart((options.now ?? new Date()).getTime(), -options.retentionMonths));
  const due = await queryRows<{ at: string; calls: string }>(
    db,
    sql`SELECT to_char(month AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"Z"') AS at, coalesce(calls, 0)::text AS calls
        FROM history_moves WHERE state = 'removed' AND month + interval '1 month' <= ${keptFrom.toISOString()}::timestamptz
        ORDER BY month`,
  );
  const dropped: RetainResult["dropped"] = [];
  if (due.length > 0) {
    await ensureHistorySchema(store);
    await ensureTierChargesSchema(store);
  }
  for (const month of due) {
    const start = new Date(month.at);
    await dropMonthPartition(store, start);
    // Its calls' reseller tier charges with them (history-tier-charges.ts).
    await dropTierChargesMonth(store, start);
    const marked = await queryRows(
      db,
      sql`UPDATE history_moves SET state = 'dropped', dropped_at = now()
          WHERE month = ${start.toISOString()}::timestamptz AND state = 'removed' RETURNING 1`,
    );
    if (marked.length === 1) dropped.push({ month: monthLabel(start), calls: month.calls });
  }
  return { keptFrom: monthLabel(keptFrom), dropped };
}
