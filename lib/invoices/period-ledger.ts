import { sql, type SQL } from "drizzle-orm";
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
  const recordset = periodsRecordset(periods);
  const sums = await readLedgerSums(db, recordset);
  const entries = await readLedgerEntries(db, recordset);
  for (const s of sums) out.set(s.g, ledgerOf(s));
  for (const r of entries) out.get(r.g)?.lines.push(entryLine(r));
  for (const s of sums) {
    const line = reratingLine(s);
    if (line) out.get(s.g)!.lines.push(line);
  }
  return out;
}

/** The periods as a SQL row source p(g, s, e, o): group, start, end, the given opening (or null). */
function periodsRecordset(periods: readonly LedgerPeriod[]): SQL {
  const json = JSON.stringify(
    periods.map((p) => ({
      g: p.groupId,
      s: p.start.toISOString(),
      e: p.end.toISOString(),
      o: p.openingMicros === undefined ? null : p.openingMicros.toString(),
    })),
  );
  return sql`json_to_recordset(${json}::json) AS p(g text, s timestamptz, e timestamptz, o bigint)`;
}

interface LedgerSums {
  g: string;
  opening: string;
  topups: string;
  adjustments: string;
  debits: string;
  rerated: string;
  rerated_n: string;
}

/** Each period's opening balance and sums by kind, and the sum and count of its calls' re-ratings. */
async function readLedgerSums(db: Executor, recordset: SQL): Promise<LedgerSums[]> {
  return queryRows<LedgerSums>(
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
}

interface LedgerEntry {
  g: string;
  kind: string;
  description: string | null;
  amount: string;
  at: Date | string;
}

/** Each period's entries that are neither debits nor for a call (top-ups, opening balances, adjustments), in order. */
async function readLedgerEntries(db: Executor, recordset: SQL): Promise<LedgerEntry[]> {
  return queryRows<LedgerEntry>(
    db,
    sql`SELECT p.g, l.kind, l.description, l.amount_micros::text AS amount, l.created_at AS at
        FROM ${recordset}
        CROSS JOIN LATERAL (
          SELECT id, kind, description, amount_micros, created_at FROM ledger_entries
          WHERE billing_group_id = p.g AND created_at >= p.s AND created_at < p.e AND kind <> 'debit' AND call_id IS NULL
        ) l
        ORDER BY p.g, l.created_at, l.id`,
  );
}

/** A period's balance from its sums (closing = opening + top-ups + adjustments + debits), lines still to add. */
function ledgerOf(s: LedgerSums): PeriodLedger {
  const opening = BigInt(s.opening);
  const topups = BigInt(s.topups);
  const adjustments = BigInt(s.adjustments);
  const debits = BigInt(s.debits);
  return {
    openingMicros: opening,
    topupsMicros: topups,
    adjustmentsMicros: adjustments,
    debitsMicros: debits,
    closingMicros: opening + topups + adjustments + debits,
    lines: [],
  };
}

function entryLine(r: LedgerEntry): LedgerLine {
  return {
    kind: r.kind === "adjustment" ? "adjustment" : "topup",
    description:
      r.description ?? (r.kind === "opening" ? "Opening balance" : r.kind === "topup" ? "Top-up" : "Adjustment"),
    amountMicros: BigInt(r.amount),
    occurredAt: new Date(r.at),
    entries: 1,
  };
}

/** The period's call re-ratings as one line; null when there were none. */
function reratingLine(s: LedgerSums): LedgerLine | null {
  const count = Number(s.rerated_n);
  if (count <= 0) return null;
  return {
    kind: "adjustment",
    description: `Re-rating of calls (${count} ${count === 1 ? "entry" : "entries"})`,
    amountMicros: BigInt(s.rerated),
    occurredAt: null,
    entries: count,
  };
}
