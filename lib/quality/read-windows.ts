import { sql, type SQL } from "drizzle-orm";
import type { Principal } from "@/lib/auth/principal";
import { accountOf } from "@/lib/auth/reach";
import { queryRows, type Executor } from "@/lib/db/client";
import { qualityMetrics, type WindowCounts } from "./quality-window";
import { windowMinutesOf, type QualityQuery, type QualityReport } from "./schemas";

// GET /v1/quality: the windows read from the calls themselves (never from the ingest path), over the primary key
// (billing_group_id, start_time, id) for one account and calls_start_id_idx for every account.

/** The counts of a window, as SQL select columns over `calls` (the evaluator reads the same ones). */
export const WINDOW_COUNTS: SQL = sql`count(*)::int AS attempts, count(answer_time)::int AS answered,
  coalesce(sum(round(extract(epoch FROM end_time - answer_time) * 1000)), 0)::bigint::text AS answered_ms,
  count(pdd_ms)::int AS pdd_calls, coalesce(sum(pdd_ms), 0)::bigint::text AS pdd_ms_sum`;

export interface WindowCountsRow {
  attempts: number;
  answered: number;
  answered_ms: string;
  pdd_calls: number;
  pdd_ms_sum: string;
}

export function countsOf(row: WindowCountsRow): WindowCounts {
  return {
    attempts: Number(row.attempts),
    answered: Number(row.answered),
    answeredMs: Number(row.answered_ms),
    pddCalls: Number(row.pdd_calls),
    pddMsSum: Number(row.pdd_ms_sum),
  };
}

export async function readQualityWindows(
  db: Executor,
  principal: Principal,
  query: QualityQuery,
  now = new Date(),
): Promise<QualityReport> {
  const account = accountOf(principal, query.account || undefined);
  const minutes = windowMinutesOf(query.window) ?? 15;
  const from = new Date(now.getTime() - minutes * 60_000);
  const byPrefix = query.groupBy === "prefix";
  const rows = await queryRows<WindowCountsRow & { billing_group_id: string; prefix: string | null }>(
    db,
    sql`SELECT billing_group_id, ${byPrefix ? sql`matched_prefix` : sql`NULL::text`} AS prefix, ${WINDOW_COUNTS}
        FROM calls
        WHERE direction = 'outbound' AND start_time >= ${from.toISOString()}::timestamptz
          AND start_time <= ${now.toISOString()}::timestamptz
          ${account === null ? sql`` : sql`AND billing_group_id = ${account}`}
        GROUP BY 1, 2
        ORDER BY 1, attempts DESC, 2`,
  );
  return {
    window: query.window,
    from: from.toISOString(),
    to: now.toISOString(),
    groupBy: query.groupBy,
    windows: rows.map((row) => {
      const counts = countsOf(row);
      return {
        billingGroupId: row.billing_group_id,
        ...(byPrefix ? { prefix: row.prefix } : {}),
        attempts: counts.attempts,
        answered: counts.answered,
        ...qualityMetrics(counts),
        pddCalls: counts.pddCalls,
      };
    }),
  };
}
