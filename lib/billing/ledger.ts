import { sql, type SQL } from "drizzle-orm";
import { queryRows, type Executor } from "@/lib/db/client";
import type { ledgerEntries } from "@/lib/db/schema";

// The ledger (ledger_entries): every movement of a balance is one entry, and for every billing group the entries sum
// to its balance (docs/contract.md §1). Every entry is written here: the opening balance and top-ups (groups.ts), the
// debits of ingested calls (in ingest's one insert statement, callDebitEntriesSql), the debits and adjustments of
// re-rating (lib/rating/rerate.ts). The balance itself moves in the same transaction (groups.ts, debit.ts). No
// trigger acts on ledger_entries; the balance change does fire billing_groups' balance alerts (lib/alerts/triggers.ts).

export type LedgerKind = (typeof ledgerEntries.kind.enumValues)[number];

export interface LedgerEntry {
  billingGroupId: string;
  kind: LedgerKind;
  /** Signed: positive raises the balance (opening, top-up), negative lowers it (a call's debit). */
  amountMicros: bigint;
  /** The call a debit or adjustment is for. */
  callId: bigint | string | null;
  description: string;
  /** When it happened, for a history written at once (the demo); default: now (the transaction's time). */
  createdAt?: Date;
}

/** Writes `entries` in one statement (a JSON recordset: one parameter, whatever their number). */
export async function writeLedgerEntries(tx: Executor, entries: readonly LedgerEntry[]): Promise<void> {
  if (entries.length === 0) return;
  const json = JSON.stringify(
    entries.map((e) => ({
      g: e.billingGroupId,
      k: e.kind,
      a: e.amountMicros.toString(),
      c: e.callId === null ? null : e.callId.toString(),
      d: e.description,
      t: e.createdAt?.toISOString() ?? null,
    })),
  );
  await tx.execute(sql`INSERT INTO ledger_entries (billing_group_id, kind, amount_micros, call_id, description, created_at)
                       SELECT x.g, x.k, x.a, x.c, x.d, coalesce(x.t, now())
                       FROM json_to_recordset(${json}::json) AS x(g text, k text, a bigint, c bigint, d text, t timestamptz)`);
}

/** Writes one entry and answers its id and time (a top-up's or an adjustment's answer names them). */
export async function writeLedgerEntry(tx: Executor, entry: LedgerEntry): Promise<{ id: string; createdAt: Date }> {
  const [row] = await queryRows<{ id: string; created_at: Date | string }>(
    tx,
    sql`INSERT INTO ledger_entries (billing_group_id, kind, amount_micros, call_id, description, created_at)
        VALUES (${entry.billingGroupId}, ${entry.kind}, ${entry.amountMicros.toString()}::bigint,
                ${entry.callId === null ? null : entry.callId.toString()}::bigint, ${entry.description},
                coalesce(${entry.createdAt?.toISOString() ?? null}::timestamptz, now()))
        RETURNING id::text AS id, created_at`,
  );
  return { id: row.id, createdAt: new Date(row.created_at) };
}

/**
 * The debit entries of calls just inserted, as the body of a data-modifying CTE in ingest's one insert statement:
 * `inserted` names the CTE that returns the inserted calls' id, billing_group_id, to_number, rated, price_micros and
 * end_time. One entry per rated call that costs something; the ledger's unique key (ledger_call_debit_key) refuses a
 * second. Dated now, as live traffic is; `atCallEnd` (a history ingested at once: the demo's 90 days) dates each at
 * its call's end, where a switch posting the CDR at hangup would have left it, so each month's statement
 * (lib/invoices/period-ledger.ts) holds its calls' debits.
 */
export function callDebitEntriesSql(inserted: SQL, options: { atCallEnd?: boolean } = {}): SQL {
  const at = sql.raw(options.atCallEnd ? "end_time" : "now()");
  return sql`INSERT INTO ledger_entries (billing_group_id, kind, amount_micros, call_id, description, created_at)
          SELECT billing_group_id, 'debit', -price_micros, id, 'Call to ' || to_number, ${at}
          FROM ${inserted} WHERE rated AND price_micros > 0`;
}
