import { sql, type SQL } from "drizzle-orm";
import type { StoredCall } from "@/lib/calls/stored-call";
import { queryRows, type Executor } from "@/lib/db/client";
import type { ledgerEntries } from "@/lib/db/schema";
import { keepsBalanceInBound } from "./balance-bound";
import { lockTiers } from "./tier-lock";

// The ledger (ledger_entries): every movement of a balance is one entry, and for every billing group the entries sum
// to its balance (docs/contract.md §1). This module is the one writer of both halves: moveBalances moves each
// balance and writes its entries in the caller's transaction, for every movement (top-ups and adjustments,
// move-balance.ts; payments, lib/payments/credit-payment.ts; the debits of ingested calls, whose entries ingest's
// one insert statement writes (callDebitEntriesSql); re-rating, lib/rating/rerate.ts). The opening balance alone is
// written with its group's row (groups.ts, writeLedgerEntries). What fires on these tables:
// triggersOn("ledger_entries") and triggersOn("billing_groups") (lib/testing/declared-triggers.ts).

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

/** A ledger entry as written: its id and time. */
export interface WrittenEntry {
  id: string;
  createdAt: Date;
}

/**
 * Writes `entries` in one statement (a JSON recordset: one parameter, whatever their number) and answers their ids
 * and times in the order given. Only for entries whose balance is already set (the opening balance, written with its
 * group's row); every movement of a balance goes through moveBalances.
 */
export async function writeLedgerEntries(tx: Executor, entries: readonly LedgerEntry[]): Promise<WrittenEntry[]> {
  if (entries.length === 0) return [];
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
  // The recordset is inserted in its order, so the ids ascend with the order given.
  const rows = await queryRows<{ id: string; created_at: Date | string }>(
    tx,
    sql`INSERT INTO ledger_entries (billing_group_id, kind, amount_micros, call_id, description, created_at)
        SELECT x.g, x.k, x.a, x.c, x.d, coalesce(x.t, now())
        FROM json_to_recordset(${json}::json) AS x(g text, k text, a bigint, c bigint, d text, t timestamptz)
        RETURNING id::text AS id, created_at`,
  );
  return rows
    .map((r) => ({ id: r.id, createdAt: new Date(r.created_at) }))
    .sort((a, b) => (BigInt(a.id) < BigInt(b.id) ? -1 : 1));
}

/** Writes one entry and answers its id and time (a top-up's or an adjustment's answer names them). */
async function writeLedgerEntry(tx: Executor, entry: LedgerEntry): Promise<WrittenEntry> {
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

/**
 * The debit entries of the tiers above the calls just inserted (docs/contract.md "Reseller tiers"), as the body of a
 * data-modifying CTE in the same statement: `charges` names a relation with each inserted call's id, billing_group_id,
 * to_number and end_time beside its tier charge's tier, rated and price. One entry per rated tier charge that costs
 * something, on the tier's own account (ledger_call_debit_key: one per tier and call); dated as callDebitEntriesSql's.
 */
export function tierDebitEntriesSql(charges: SQL, options: { atCallEnd?: boolean } = {}): SQL {
  const at = sql.raw(options.atCallEnd ? "end_time" : "now()");
  return sql`INSERT INTO ledger_entries (billing_group_id, kind, amount_micros, call_id, description, created_at)
          SELECT tier, 'debit', -price, id, 'Call to ' || to_number || ' by ' || billing_group_id, ${at}
          FROM ${charges} WHERE rated AND price > 0`;
}

/**
 * A call (or a tier's charge for a call: billingGroupId the tier) whose debit entry callDebitEntriesSql (or
 * tierDebitEntriesSql) writes: rated, and costing something.
 */
type DebitedCall = Pick<StoredCall, "billingGroupId" | "rated" | "priceMicros">;

/**
 * The debits of calls whose entries the caller's own statement wrote (ingest's insert, callDebitEntriesSql): the
 * set-based form of a movement, so a batch of calls stays one insert statement and one UPDATE per group.
 */
export interface WrittenCallDebits {
  writtenBy: "callDebitEntriesSql";
  calls: readonly DebitedCall[];
}

/** The movement of the calls just inserted with callDebitEntriesSql (the same rule: rated and price above zero). */
export function callDebits(calls: readonly DebitedCall[]): WrittenCallDebits {
  return { writtenBy: "callDebitEntriesSql", calls };
}

/** The balances moved and the entries written by one moveBalances. */
export interface MovedBalances {
  /** Each group's balance after the movement; a group whose entries sum to zero is not moved and not listed. */
  balances: ReadonlyMap<string, bigint>;
  /** The entries written, in the order given (none for call debits, which the caller's statement wrote). */
  entries: WrittenEntry[];
}

/**
 * A balance refused the movement: no such group, (withinBound) the sum would pass the bound of balances, or
 * (withinHeadroom) a debit the group's headroom (balance plus credit limit, less its open reservations) does not cover.
 */
export class BalanceRefusedError extends RangeError {
  override readonly name = "BalanceRefusedError";
  constructor(
    readonly billingGroupId: string,
    readonly reason: "unknown_group" | "past_bound" | "insufficient_funds",
  ) {
    super(
      reason === "unknown_group"
        ? `no billing group ${JSON.stringify(billingGroupId)}`
        : reason === "past_bound"
          ? `the movement would take the balance of ${billingGroupId} past its bound`
          : `the balance and credit limit of ${billingGroupId} do not cover the movement`,
    );
  }
}

/**
 * The one way a balance moves (docs/contract.md §1: balance = sum of the ledger). In the caller's transaction, each
 * group's balance moves by the sum of its entries, one atomic `balance + amount` UPDATE per group in group id order
 * (no read-modify-write in JS, so concurrent movements all count; the same lock order everywhere, so concurrent
 * multi-group batches cannot deadlock), then the entries are written in one statement. Call debits (callDebits)
 * were written by the caller's insert; only their balances move here. `withinBound`: a sum that would take a balance
 * past the bound of balances (balance-bound.ts) is refused. `withinHeadroom`: these groups' debits must fit their
 * headroom (a reseller paying its customer's top-up): balance plus credit limit, less what is open at the tier (its own
 * reservations and its subtree's holds, tier_headroom in migration 0038: the figure authorization reserves against).
 * Their tier locks are taken first (lockTiers, as authorization does), so no authorization reserves at the tier
 * meanwhile, and the condition is in the same UPDATE, so concurrent movements under the row lock never pass it.
 * Throws BalanceRefusedError (the transaction should roll back). Answers the new balances and the written entries.
 */
export async function moveBalances(
  tx: Executor,
  movement: readonly LedgerEntry[] | WrittenCallDebits,
  options: { withinBound?: boolean; withinHeadroom?: readonly string[] } = {},
): Promise<MovedBalances> {
  const totals = new Map<string, bigint>();
  const add = (groupId: string, amount: bigint) => totals.set(groupId, (totals.get(groupId) ?? 0n) + amount);
  if ("writtenBy" in movement) {
    for (const c of movement.calls) if (c.rated && c.priceMicros > 0n) add(c.billingGroupId, -c.priceMicros);
  } else {
    for (const e of movement) add(e.billingGroupId, e.amountMicros);
  }
  const paying = (options.withinHeadroom ?? []).filter((id) => (totals.get(id) ?? 0n) < 0n);
  if (paying.length > 0) await lockTiers(tx, paying);
  const balances = new Map<string, bigint>();
  for (const groupId of [...totals.keys()].sort()) {
    const amount = totals.get(groupId)!;
    if (amount === 0n) continue;
    const bound = options.withinBound ? sql` AND ${keepsBalanceInBound(sql`balance_micros`, amount)}` : sql``;
    const credit = paying.includes(groupId)
      ? sql` AND tier_headroom(id, balance_micros, credit_limit_micros) >= ${(-amount).toString()}::bigint`
      : sql``;
    // PostgreSQL re-reads the WHERE on the row a concurrent UPDATE left, so the conditions hold under concurrency.
    const [moved] = await queryRows<{ balance: string }>(
      tx,
      sql`UPDATE billing_groups SET balance_micros = balance_micros + ${amount.toString()}::bigint
          WHERE id = ${groupId}${bound}${credit} RETURNING balance_micros::text AS balance`,
    );
    if (!moved) {
      const reason = await refusalOf(tx, groupId, options.withinBound ?? false, amount);
      throw new BalanceRefusedError(groupId, reason);
    }
    balances.set(groupId, BigInt(moved.balance));
  }
  if ("writtenBy" in movement) return { balances, entries: [] };
  const entries =
    movement.length === 1 ? [await writeLedgerEntry(tx, movement[0])] : await writeLedgerEntries(tx, movement);
  return { balances, entries };
}

/** Why an UPDATE moved no row: the group is unknown, the bound refused it (when bounded), else its credit. */
async function refusalOf(
  tx: Executor,
  groupId: string,
  bounded: boolean,
  amount: bigint,
): Promise<BalanceRefusedError["reason"]> {
  const [row] = await queryRows<{ in_bound: boolean }>(
    tx,
    sql`SELECT ${keepsBalanceInBound(sql`balance_micros`, amount)} AS in_bound FROM billing_groups WHERE id = ${groupId}`,
  );
  if (!row) return "unknown_group";
  return bounded && !row.in_bound ? "past_bound" : "insufficient_funds";
}
