import { sql } from "drizzle-orm";
import { queryRows, type Executor } from "@/lib/db/client";

// The balance over an invoice period, from the ledger (lib/billing/ledger.ts) by the entries' own time (created_at):
// opening + top-ups + adjustments + call debits = closing, exactly (docs/contract.md §1, §9). Debits are by the time
// they were written, usage lines by the calls' start: a call that ended after the period's close, or a late CDR, is
// in the next statement's debits.

export interface LedgerLine {
  kind: "topup" | "adjustment";
  description: string;
  amountMicros: bigint;
  occurredAt: Date | null;
  /** Entries summed into this line (the period's call re-ratings are one line). */
  entries: number;
}

export interface PeriodLedger {
  openingMicros: bigint;
  topupsMicros: bigint;
  adjustmentsMicros: bigint;
  debitsMicros: bigint;
  closingMicros: bigint;
  /** Each top-up and opening balance, each adjustment not for a call, and one line for the calls' re-ratings. */
  lines: LedgerLine[];
}

/**
 * The group's ledger over [start, end). `openingMicros`: the previous invoice's closing balance when the periods
 * join, else undefined and the sum of every earlier entry is read.
 */
export async function readPeriodLedger(
  db: Executor,
  groupId: string,
  start: Date,
  end: Date,
  openingMicros?: bigint,
): Promise<PeriodLedger> {
  const s = start.toISOString();
  const e = end.toISOString();
  const [sums] = await queryRows<{
    opening: string;
    topups: string;
    adjustments: string;
    debits: string;
    rerated: string;
    rerated_n: string;
  }>(
    db,
    sql`SELECT
          ${openingMicros === undefined ? sql`(SELECT coalesce(sum(amount_micros), 0) FROM ledger_entries WHERE billing_group_id = ${groupId} AND created_at < ${s}::timestamptz)` : sql`${openingMicros.toString()}::bigint`}::text AS opening,
          coalesce(sum(amount_micros) FILTER (WHERE kind IN ('opening', 'topup')), 0)::text AS topups,
          coalesce(sum(amount_micros) FILTER (WHERE kind = 'adjustment'), 0)::text AS adjustments,
          coalesce(sum(amount_micros) FILTER (WHERE kind = 'debit'), 0)::text AS debits,
          coalesce(sum(amount_micros) FILTER (WHERE kind = 'adjustment' AND call_id IS NOT NULL), 0)::text AS rerated,
          count(*) FILTER (WHERE kind = 'adjustment' AND call_id IS NOT NULL)::text AS rerated_n
        FROM ledger_entries
        WHERE billing_group_id = ${groupId} AND created_at >= ${s}::timestamptz AND created_at < ${e}::timestamptz`,
  );
  const entries = await queryRows<{ kind: string; description: string | null; amount: string; at: Date | string }>(
    db,
    sql`SELECT kind, description, amount_micros::text AS amount, created_at AS at FROM ledger_entries
        WHERE billing_group_id = ${groupId} AND created_at >= ${s}::timestamptz AND created_at < ${e}::timestamptz
          AND kind <> 'debit' AND call_id IS NULL
        ORDER BY created_at, id`,
  );
  const lines: LedgerLine[] = entries.map((r) => ({
    kind: r.kind === "adjustment" ? "adjustment" : "topup",
    description:
      r.description ?? (r.kind === "opening" ? "Opening balance" : r.kind === "topup" ? "Top-up" : "Adjustment"),
    amountMicros: BigInt(r.amount),
    occurredAt: new Date(r.at),
    entries: 1,
  }));
  const reratedCount = Number(sums.rerated_n);
  if (reratedCount > 0)
    lines.push({
      kind: "adjustment",
      description: `Re-rating of calls (${reratedCount} ${reratedCount === 1 ? "entry" : "entries"})`,
      amountMicros: BigInt(sums.rerated),
      occurredAt: null,
      entries: reratedCount,
    });
  const opening = BigInt(sums.opening);
  const topups = BigInt(sums.topups);
  const adjustments = BigInt(sums.adjustments);
  const debits = BigInt(sums.debits);
  return {
    openingMicros: opening,
    topupsMicros: topups,
    adjustmentsMicros: adjustments,
    debitsMicros: debits,
    closingMicros: opening + topups + adjustments + debits,
    lines,
  };
}
