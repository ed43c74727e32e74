import { sql } from "drizzle-orm";
import { callReads } from "@/lib/calls/call-store";
import { readPeriodsTierUsage } from "@/lib/calls/period-tier-usage";
import type { GroupPeriod, UsageLine } from "@/lib/calls/period-usage";
import { queryRows, type Db, type Executor } from "@/lib/db/client";
import { lockGroupsForInvoicing, type GroupForInvoicing } from "./group-lock";
import { insertDocuments, type NewDocument, type NewLine } from "./insert-document";
import { readPeriodsLedger, type PeriodLedger } from "./period-ledger";
import { groupUsage, readCarried, roundedUsageLine, withRounding, type Carried } from "./payable-lines";
import { taxMicros } from "./tax";
import { issuerFields, issuerOf } from "./tier-usage";

export interface Issuer {
  name: string;
  address: string;
}

/**
 * Issues each group's invoice for its period [start, end) unless it exists (docs/contract.md §10): usage lines from
 * the rollups (and a reseller's tier charges: lib/invoices/tier-usage.ts), the period's balance from the ledger, tax on the subtotal. One transaction for the batch (at most one
 * period per group), under the groups' locks; the unique key (group, period start) would refuse a second invoice
 * anyway. Returns the numbers issued.
 */
export async function issueInvoices(db: Db, periods: readonly GroupPeriod[], issuer: Issuer): Promise<string[]> {
  if (periods.length === 0) return [];
  return db.transaction(async (tx) => {
    const groups = await lockGroupsForInvoicing(
      tx,
      periods.map((p) => p.groupId),
    );
    const { issued, previous } = await readAdjoiningInvoices(tx, periods);
    const due = periods.filter((p) => groups.has(p.groupId) && !issued.has(p.groupId));
    if (due.length === 0) return [];
    const usage = await callReads(tx).periodsUsage(due);
    // A reseller also owes its parent (or the operator) its tier charges for its subtree's calls.
    const tierUsage = await readPeriodsTierUsage(tx, due);
    const carried = await readCarried(
      tx,
      due.map((p) => p.groupId),
    );
    const ledgers = await readPeriodsLedger(
      tx,
      due.map((p) => {
        const closing = previous.get(p.groupId);
        return { ...p, openingMicros: closing == null ? undefined : BigInt(closing) };
      }),
    );
    const docs: NewDocument[] = due.map((p) =>
      invoiceDocument(
        p,
        groups.get(p.groupId)!,
        [...(usage.get(p.groupId) ?? []), ...(tierUsage.get(p.groupId) ?? [])],
        carried.get(p.groupId)!,
        ledgers.get(p.groupId)!,
        issuer,
      ),
    );
    await markInvoicedUntil(tx, due);
    return (await insertDocuments(tx, "invoice", docs)).map((d) => d.number);
  });
}

/**
 * The invoices of these groups that begin or end where a period begins: the groups whose period is already invoiced,
 * and each group's previous invoice's closing balance. One scan of invoices whatever the planner thinks of its size
 * (no subquery per group: statistics taken while the table was empty would make that a scan per group).
 */
async function readAdjoiningInvoices(
  tx: Executor,
  periods: readonly GroupPeriod[],
): Promise<{ issued: Set<string>; previous: Map<string, string | null> }> {
  const ids = periods.map((p) => p.groupId).join(",");
  const starts = [...new Set(periods.map((p) => p.start.toISOString()))].join(",");
  const known = await queryRows<{ g: string; start: Date | string; end: Date | string; closing: string | null }>(
    tx,
    sql`SELECT billing_group_id AS g, period_start AS start, period_end AS "end", closing_balance_micros::text AS closing
        FROM invoices
        WHERE kind = 'invoice' AND billing_group_id = ANY(string_to_array(${ids}, ','))
          AND (period_start = ANY(string_to_array(${starts}, ',')::timestamptz[])
               OR period_end = ANY(string_to_array(${starts}, ',')::timestamptz[]))`,
  );
  const issued = new Set<string>();
  const previous = new Map<string, string | null>();
  const startOf = new Map(periods.map((p) => [p.groupId, p.start.getTime()]));
  for (const k of known) {
    if (new Date(k.start).getTime() === startOf.get(k.g)) issued.add(k.g);
    if (new Date(k.end).getTime() === startOf.get(k.g)) previous.set(k.g, k.closing);
  }
  return { issued, previous };
}

/**
 * One group's invoice for its period: payable usage lines, tax, and the period's balance with its ledger lines. Issued
 * by the group's parent when it has one (its name, its own number series), else by the operator.
 */
function invoiceDocument(
  p: GroupPeriod,
  group: GroupForInvoicing,
  periodUsage: readonly UsageLine[],
  carried: Carried,
  ledger: PeriodLedger,
  issuer: Issuer,
): NewDocument {
  const exact = groupUsage(periodUsage);
  // Payable amounts: lines and subtotal in the currency's minor unit, the remainder carried (docs/contract.md §10).
  const {
    lines,
    subtotalMicros: subtotal,
    remainderMicros,
  } = withRounding(
    exact.map((u) => roundedUsageLine(u, group.currency)),
    exact.reduce((sum, u) => sum + u.exactMicros, 0n),
    carried,
    group.currency,
  );
  const tax = taxMicros(subtotal, group.taxRatePpm, group.currency);
  return {
    kind: "invoice",
    billingGroupId: p.groupId,
    invoiceId: null,
    periodStart: p.start,
    periodEnd: p.end,
    timeZone: group.timeZone,
    billingMode: group.billingMode,
    taxRatePpm: group.taxRatePpm,
    currency: group.currency,
    customerName: group.name,
    ...issuerFields(issuerOf(group, issuer)),
    subtotalMicros: subtotal,
    taxMicros: tax,
    totalMicros: subtotal + tax,
    remainderMicros,
    balance: {
      opening: ledger.openingMicros,
      topups: ledger.topupsMicros,
      adjustments: ledger.adjustmentsMicros,
      debits: ledger.debitsMicros,
      closing: ledger.closingMicros,
    },
    lines: [
      ...lines,
      ...ledger.lines.map((l): NewLine => ({
        kind: l.kind,
        direction: null,
        prefix: null,
        description: l.description,
        calls: 0,
        billedSeconds: 0,
        amountMicros: l.amountMicros,
        exactMicros: null,
        occurredAt: l.occurredAt,
      })),
    ],
  };
}

/** The re-check trigger on calls marks every later write of these periods (docs/contract.md §10). */
async function markInvoicedUntil(tx: Executor, due: readonly GroupPeriod[]): Promise<void> {
  const ends = JSON.stringify(due.map((p) => ({ g: p.groupId, e: p.end.toISOString() })));
  await tx.execute(
    sql`INSERT INTO invoiced_until AS u (billing_group_id, period_end)
        SELECT g, e FROM json_to_recordset(${ends}::json) AS x(g text, e timestamptz) ORDER BY g
        ON CONFLICT (billing_group_id) DO UPDATE SET period_end = greatest(u.period_end, excluded.period_end)`,
  );
}
