import { sql } from "drizzle-orm";
import { queryRows, type Executor } from "@/lib/db/client";

// The balance over an invoice period, from the ledger (lib/billing/ledger.ts) by the entries' own time (created_at):
// opening + top-ups + adjustments + call debits = closing, exactly (docs/contract.md §1, §10). Debits are by the time
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

export interface LedgerPeriod {
  groupId: string;
  start: Date;
  end: Date;
  /** The previous invoice's closing balance when the periods join; else every earlier entry is summed. */
  openingMicros?: bigint;
}

/** Each group's ledger over its period, by group id. */
export async function readPeriodsLedger(
  db: Executor,
  periods: readonly LedgerPeriod[],
): Promise<Map<string, PeriodLedger>> {
  const out = new Map<string, PeriodLedger>();
  if (periods.length === 0) return out;
  const json = JSON.stringify(
    periods.map((p) => ({
      g: p.groupId,
      s: p.start.toISOString(),
      e: p.end.toISOString(),
      o: p.openingMicros === undefined ? null : p.openingMicros.toString(),
    })),
  );
  const recordset = sql`json_to_recordset(${json}::json) AS p(g text, s timestamptz, e timestamptz, o bigint)`;
  const sums = await queryRows<{
    g: string;
    opening: string;
    topups: string;
    adjustments: string;
    debits: string;
    rerated: string;
    rerated_n: string;
  }>(
    db,
    sql`SELECT p.g,
          coalesce(p.o, (SELECT coalesce(sum(amount_micros), 0) FROM ledger_entries b
                         WHERE b.billing_group_id = p.g AND b.created_at < p.s))::text AS opening,
          coalesce(sum(l.amount_micros) FILTER (WHERE l.kind IN ('opening', 'topup')), 0)::text AS topups,
          coalesce(sum(l.amount_micros) FILTER (WHERE l.kind = 'adjustment'), 0)::text AS adjustments,
          coalesce(sum(l.amount_micros) FILTER (WHERE l.kind = 'debit'), 0)::text AS debits,
          coalesce(sum(l.amount_micros) FILTER (WHERE l.kind = 'adjustment' AND l.call_id IS NOT NULL), 0)::text AS rerated,
          count(*) FILTER (WHERE l.kind = 'adjustment' AND l.call_id IS NOT NULL)::text AS rerated_n
        FROM ${recordset}
        LEFT JOIN LATERAL (
          SELECT kind, call_id, amount_micros FROM ledger_entries
          WHERE billing_group_id = p.g AND created_at >= p.s AND created_at < p.e) l ON true
        GROUP BY p.g, p.o, p.s`,
  );
  const entries = await queryRows<{
    g: string;
    kind: string;
    description: string | null;
    amount: string;
    at: Date | string;
  }>(
    db,
    sql`SELECT p.g, l.kind, l.description, l.amount_micros::text AS amount, l.created_at AS at
        FROM ${recordset}
        CROSS JOIN LATERAL (
          SELECT id, kind, description, amount_micros, created_at FROM ledger_entries
          WHERE billing_group_id = p.g AND created_at >= p.s AND created_at < p.e AND kind <> 'debit' AND call_id IS NULL
        ) l
        ORDER BY p.g, l.created_at, l.id`,
  );
  for (const s of sums) {
    const opening = BigInt(s.opening);
    const topups = BigInt(s.topups);
    const adjustments = BigInt(s.adjustments);
    const debits = BigInt(s.debits);
    out.set(s.g, {
      openingMicros: opening,
      topupsMicros: topups,
      adjustmentsMicros: adjustments,
      debitsMicros: debits,
      closingMicros: opening + topups + adjustments + debits,
      lines: [],
    });
  }
  for (const r of entries)
    out.get(r.g)?.lines.push({
      kind: r.kind === "adjustment" ? "adjustment" : "topup",
      description:
        r.description ?? (r.kind === "opening" ? "Opening balance" : r.kind === "topup" ? "Top-up" : "Adjustment"),
      amountMicros: BigInt(r.amount),
      occurredAt: new Date(r.at),
      entries: 1,
    });
  for (const s of sums) {
    const count = Number(s.rerated_n);
    if (count > 0)
      out.get(s.g)!.lines.push({
        kind: "adjustment",
        description: `Re-rating of calls (${count} ${count === 1 ? "entry" : "entries"})`,
        amountMicros: BigInt(s.rerated),
        occurredAt: null,
        entries: count,
      });
  }
  return out;
}
