import { sql, type SQL } from "drizzle-orm";
import { queryRows, type Executor } from "@/lib/db/client";

/** Refused: calls before `before` belong to periods not yet invoiced (their usage is still to be billed from them). */
export class ArchiveRefusedError extends Error {
  constructor(readonly groupIds: string[]) {
    super(
      `archive refused: calls of periods not yet invoiced (billing groups ${groupIds.join(", ")}); ` +
        "archive up to each group's last invoiced period end at most",
    );
    this.name = "ArchiveRefusedError";
  }
}

export interface ArchiveOptions {
  /** Calls that started before this instant leave the hot table. */
  before: Date;
  /** Calls that started at or after this instant only (the history tier moves one month); every earlier one when absent. */
  from?: Date;
  /** One billing group only; every group when absent. */
  billingGroupId?: string;
}

/**
 * The calls an archive with these options removes, for a statement of the form `WITH <cut>, ... FROM calls c,
 * invoiced_until u WHERE <where>`: the calls in [from, before) of invoiced periods, but for the UTC days an invoice
 * period cuts (`cut`: the CTE named cut). The history tier copies exactly these rows before archiving them.
 */
export function archivableCalls(options: ArchiveOptions): { cut: SQL; where: SQL } {
  const before = options.before.toISOString();
  const oneGroup = (column: ReturnType<typeof sql.raw>) =>
    options.billingGroupId === undefined ? sql`true` : sql`${column} = ${options.billingGroupId}`;
  const from = options.from === undefined ? sql`true` : sql`c.start_time >= ${options.from.toISOString()}::timestamptz`;
  return {
    cut: sql`cut AS MATERIALIZED (
            SELECT DISTINCT i.billing_group_id AS g, date_trunc('day', t.at, 'UTC') AS day
            FROM invoices i CROSS JOIN LATERAL (VALUES (i.period_start), (i.period_end)) AS t(at)
            WHERE i.kind = 'invoice' AND ${oneGroup(sql.raw("i.billing_group_id"))}
              AND t.at <> date_trunc('day', t.at, 'UTC')
          )`,
    // Within the invoiced periods here too: a late CDR committed since the check is never archived unbilled.
    where: sql`${oneGroup(sql.raw("c.billing_group_id"))} AND ${from} AND c.start_time < ${before}::timestamptz
              AND u.billing_group_id = c.billing_group_id AND c.start_time < u.period_end
              AND NOT EXISTS (SELECT 1 FROM cut WHERE cut.g = c.billing_group_id
                                AND cut.day = date_trunc('day', c.start_time, 'UTC'))`,
  };
}

/**
 * Runs `work` in `tx` with callbook.archiving on (migration 0023's switch, this transaction only) and off again after
 * it: deletes of calls and tier charges then leave the usage and tier rollups as they were and mark no invoice recheck
 * (the archive, the move to history and an erasure remove calls without changing what was billed).
 */
export async function whileArchiving<T>(tx: Executor, work: () => Promise<T>): Promise<T> {
  await tx.execute(sql`SELECT set_config('callbook.archiving', 'on', true)`);
  const result = await work();
  await tx.execute(sql`SELECT set_config('callbook.archiving', 'off', true)`);
  return result;
}

/**
 * Removes calls (of [from, before)) from the hot table without changing what was billed (docs/contract.md "Archiving calls"): the DELETE
 * runs with callbook.archiving on (this transaction only), so the usage rollups keep counting the calls and no invoice
 * recheck is marked (migration 0023). Refuses (ArchiveRefusedError, nothing removed) when a call in [from, before) is of a period not yet invoiced (uninvoicedGroups). Keeps the calls of the UTC days an invoice period cuts (a boundary off UTC
 * midnight: a zone's month end), which a note's recheck reads from calls (lib/calls/period-usage.ts), and every
 * call's uuid claim (call_uuids), so a replayed CDR is never stored and billed again. A call's tier charges
 * (call_tier_charges) are removed with it. Returns how many were removed.
 */
export async function archiveCalls(db: Executor, options: ArchiveOptions): Promise<number> {
  const { cut, where } = archivableCalls(options);
  return db.transaction(async (tx) => {
    const uninvoiced = await uninvoicedGroups(tx, options);
    if (uninvoiced.length > 0) throw new ArchiveRefusedError(uninvoiced);
    const removed = await whileArchiving(tx, () =>
      queryRows<{ n: string }>(
        tx,
        sql`WITH ${cut}, gone AS (
            DELETE FROM calls c USING invoiced_until u WHERE ${where}
            RETURNING c.billing_group_id, c.start_time, c.id
          ), tiers AS (
            -- A call's tier charges leave with it (docs/contract.md "Reseller tiers"); the tiers' ledger entries stay.
            DELETE FROM call_tier_charges t USING gone
            WHERE t.billing_group_id = gone.billing_group_id AND t.start_time = gone.start_time AND t.call_id = gone.id
          )
          SELECT count(*)::text AS n FROM gone`,
      ),
    );
    return Number(removed[0]?.n ?? 0);
  });
}

/**
 * Every group with a call in [from, before) that its last invoice does not cover (or that has none), and every tier
 * above such a call not yet invoiced for it (uninvoicedTiers): what makes archiveCalls refuse. One index range per group on calls' primary key.
 */
export async function uninvoicedGroups(db: Executor, options: ArchiveOptions): Promise<string[]> {
  const before = options.before.toISOString();
  const oneGroup = options.billingGroupId === undefined ? sql`true` : sql`g.id = ${options.billingGroupId}`;
  const from = options.from === undefined ? sql`true` : sql`c.start_time >= ${options.from.toISOString()}::timestamptz`;
  const rows = await queryRows<{ id: string }>(
    db,
    sql`SELECT g.id FROM billing_groups g LEFT JOIN invoiced_until u ON u.billing_group_id = g.id
        WHERE ${oneGroup} AND (u.period_end IS NULL OR u.period_end < ${before}::timestamptz)
          AND EXISTS (SELECT 1 FROM calls c WHERE c.billing_group_id = g.id AND c.start_time < ${before}::timestamptz
                        AND ${from} AND (u.period_end IS NULL OR c.start_time >= u.period_end))
        ORDER BY g.id`,
  );
  return [...new Set([...rows.map((g) => g.id), ...(await uninvoicedTiers(db, options))])].sort();
}

/**
 * The ancestor tiers with a tier charge (call_tier_charges) on a call in [from, before) that their own last invoice
 * does not cover: a reseller's invoice bills its tier charges, which leave with their calls (docs/contract.md "Reseller
 * tiers", "Invoices by tier"), so their calls stay until every tier above them is invoiced too.
 */
async function uninvoicedTiers(db: Executor, options: ArchiveOptions): Promise<string[]> {
  const oneGroup =
    options.billingGroupId === undefined ? sql`true` : sql`t.billing_group_id = ${options.billingGroupId}`;
  const from = options.from === undefined ? sql`true` : sql`t.start_time >= ${options.from.toISOString()}::timestamptz`;
  const rows = await queryRows<{ id: string }>(
    db,
    sql`SELECT DISTINCT t.tier_group_id AS id FROM call_tier_charges t
        LEFT JOIN invoiced_until u ON u.billing_group_id = t.tier_group_id
        WHERE ${oneGroup} AND ${from} AND t.start_time < ${options.before.toISOString()}::timestamptz
          AND (u.period_end IS NULL OR t.start_time >= u.period_end)`,
  );
  return rows.map((r) => r.id);
}
