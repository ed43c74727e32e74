import { sql } from "drizzle-orm";
import { queryRows, type Db } from "@/lib/db/client";
import { lockGroupForInvoicing } from "./group-lock";
import { insertDocument, type NewLine } from "./insert-document";
import { readPeriodLedger } from "./period-ledger";
import { readPeriodUsage, type UsageLine } from "./period-usage";
import { taxMicros } from "./tax";

export interface Issuer {
  name: string;
  address: string;
}

/** A usage line's words: the rate card's description of its prefix, else the prefix; "Unrated calls" without one. */
export function usageDescription(line: Pick<UsageLine, "prefix" | "rateDescription">): string {
  if (line.prefix === null) return "Unrated calls";
  return line.rateDescription ? `${line.rateDescription} (${line.prefix})` : `Prefix ${line.prefix}`;
}

export function usageLine(line: UsageLine): NewLine {
  return {
    kind: "usage",
    direction: line.direction,
    prefix: line.prefix,
    description: usageDescription(line),
    calls: line.calls,
    billedSeconds: line.billedSeconds,
    amountMicros: line.amountMicros,
    occurredAt: null,
  };
}

/**
 * Issues the group's invoice for [periodStart, periodEnd) unless it exists (docs/contract.md §10): usage lines from
 * the rollups, the period's balance from the ledger, tax on the subtotal. One transaction under the group's lock;
 * the unique key (group, period start) would refuse a second one anyway. Returns the number issued, or null.
 */
export async function issueInvoice(
  db: Db,
  groupId: string,
  periodStart: Date,
  periodEnd: Date,
  issuer: Issuer,
): Promise<string | null> {
  return db.transaction(async (tx) => {
    const group = await lockGroupForInvoicing(tx, groupId);
    if (!group) return null;
    const [previous] = await queryRows<{ period_start: Date | string; closing: string | null }>(
      tx,
      sql`SELECT period_start, closing_balance_micros::text AS closing FROM invoices
          WHERE billing_group_id = ${groupId} AND kind = 'invoice' AND period_start <= ${periodStart.toISOString()}::timestamptz
            AND period_end >= ${periodStart.toISOString()}::timestamptz
          ORDER BY period_start DESC LIMIT 1`,
    );
    if (previous && new Date(previous.period_start).getTime() === periodStart.getTime()) return null;
    const usage = await readPeriodUsage(tx, groupId, periodStart, periodEnd);
    const ledger = await readPeriodLedger(
      tx,
      groupId,
      periodStart,
      periodEnd,
      previous?.closing != null ? BigInt(previous.closing) : undefined,
    );
    const subtotal = usage.reduce((sum, l) => sum + l.amountMicros, 0n);
    const tax = taxMicros(subtotal, group.taxRatePpm, group.currency);
    const lines: NewLine[] = [
      ...usage.map(usageLine),
      ...ledger.lines.map((l): NewLine => ({
        kind: l.kind,
        direction: null,
        prefix: null,
        description: l.description,
        calls: 0,
        billedSeconds: 0,
        amountMicros: l.amountMicros,
        occurredAt: l.occurredAt,
      })),
    ];
    const { number } = await insertDocument(tx, {
      kind: "invoice",
      billingGroupId: groupId,
      invoiceId: null,
      periodStart,
      periodEnd,
      timeZone: group.timeZone,
      billingMode: group.billingMode,
      taxRatePpm: group.taxRatePpm,
      currency: group.currency,
      customerName: group.name,
      issuerName: issuer.name,
      issuerAddress: issuer.address,
      subtotalMicros: subtotal,
      taxMicros: tax,
      totalMicros: subtotal + tax,
      balance: {
        opening: ledger.openingMicros,
        topups: ledger.topupsMicros,
        adjustments: ledger.adjustmentsMicros,
        debits: ledger.debitsMicros,
        closing: ledger.closingMicros,
      },
      lines,
    });
    return number;
  });
}
