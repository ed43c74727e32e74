import { sql } from "drizzle-orm";
import { callReads } from "@/lib/calls/call-store";
import { queryRows, type Db, type Executor } from "@/lib/db/client";
import { roundToMinorUnit } from "@/lib/money/currency-decimals";
import { lockGroupForInvoicing } from "./group-lock";
import { insertDocument, type NewLine } from "./insert-document";
import type { Issuer } from "./issue-invoice";
import { groupUsage, readCarried, usageKey, withRounding, type ExactUsage } from "./payable-lines";
import { taxMicros } from "./tax";
import { isResoldLine, issuerFields, issuerOf } from "./tier-usage";

interface Invoiced {
  direction: "inbound" | "outbound";
  prefix: string | null;
  description: string;
  calls: number;
  billedSeconds: number;
  /** What the invoice and its notes billed for the line (minor units), and the exact sum they account for. */
  amountMicros: bigint;
  exactMicros: bigint;
}

/**
 * Compares an issued invoice's period with its calls now (re-rated, late or deleted calls) and, when an amount
 * differs, issues a credit note (the period costs less) or a debit note (more) referencing it (docs/contract.md §10):
 * one line per direction and destination name whose exact amount moved (its billed amount becomes the exact sum now
 * rounded to the minor unit), a rounding line for the remainder carried in and out (the subtotal is a whole number of
 * minor units); tax = tax(new subtotal) - the tax invoiced so far. Returns the note's number, or null.
 */
export async function issueNoteIfChanged(db: Db, invoiceId: string, issuer: Issuer): Promise<string | null> {
  return db.transaction(async (tx) => {
    const invoice = await readInvoicePeriod(tx, invoiceId);
    if (!invoice) return null;
    const group = await lockGroupForInvoicing(tx, invoice.groupId);
    if (!group) return null;
    // The invoice and its notes so far (read under the group's lock: another process's note is committed and seen).
    const sums = await readIssuedSums(tx, invoiceId);
    // A reseller's lines of tier charges are billed as issued: a note compares the group's own calls only (its
    // subtree's calls mark their own accounts, and archiving removes tier charges: docs/contract.md "Reseller tiers").
    const before = new Map(
      [...(await readInvoicedUsage(tx, invoiceId))].filter(([, l]) => !isResoldLine(l.description)),
    );
    const now = groupUsage(await callReads(tx).periodUsage(invoice.groupId, invoice.start, invoice.end));
    const { usage, exact } = usageChanges(now, before, sums.currency);
    if (usage.length === 0) return null;
    const carried = (await readCarried(tx, [invoice.groupId])).get(invoice.groupId)!;
    const { lines, subtotalMicros: difference, remainderMicros } = withRounding(usage, exact, carried, sums.currency);
    const subtotalBefore = BigInt(sums.subtotal);
    const tax = taxMicros(subtotalBefore + difference, sums.rate, sums.currency) - BigInt(sums.tax);
    const total = difference + tax;
    const { number } = await insertDocument(tx, {
      kind: total < 0n ? "credit_note" : "debit_note",
      billingGroupId: invoice.groupId,
      invoiceId,
      periodStart: invoice.start,
      periodEnd: invoice.end,
      timeZone: sums.zone,
      billingMode: sums.mode,
      taxRatePpm: sums.rate,
      currency: sums.currency,
      customerName: group.name,
      ...issuerFields(issuerOf(group, issuer)),
      subtotalMicros: difference,
      taxMicros: tax,
      totalMicros: total,
      remainderMicros,
      balance: null,
      lines,
    });
    return number;
  });
}

/** The invoice's group and period; null when the id is not an invoice. */
async function readInvoicePeriod(
  tx: Executor,
  invoiceId: string,
): Promise<{ groupId: string; start: Date; end: Date } | null> {
  const [invoice] = await queryRows<{
    billing_group_id: string;
    period_start: Date | string;
    period_end: Date | string;
  }>(
    tx,
    sql`SELECT billing_group_id, period_start, period_end FROM invoices WHERE id = ${invoiceId} AND kind = 'invoice'`,
  );
  if (!invoice) return null;
  return {
    groupId: invoice.billing_group_id,
    start: new Date(invoice.period_start),
    end: new Date(invoice.period_end),
  };
}

interface IssuedSums {
  subtotal: string;
  tax: string;
  currency: string;
  rate: number;
  zone: string;
  mode: "prepaid" | "postpaid";
}

/** What the invoice and its notes billed so far, and the invoice's currency, tax rate, zone and mode. */
async function readIssuedSums(tx: Executor, invoiceId: string): Promise<IssuedSums> {
  const [sums] = await queryRows<IssuedSums>(
    tx,
    sql`SELECT sum(subtotal_micros)::text AS subtotal, sum(tax_micros)::text AS tax,
               min(currency) FILTER (WHERE kind = 'invoice') AS currency,
               min(tax_rate_ppm) FILTER (WHERE kind = 'invoice') AS rate,
               min(time_zone) FILTER (WHERE kind = 'invoice') AS zone,
               min(billing_mode) FILTER (WHERE kind = 'invoice') AS mode
        FROM invoices WHERE id = ${invoiceId} OR invoice_id = ${invoiceId}`,
  );
  return sums;
}

/** The usage the invoice and its notes billed, by usage key (direction and destination name). */
async function readInvoicedUsage(tx: Executor, invoiceId: string): Promise<Map<string, Invoiced>> {
  // Exact with exact: a usage line keeps its calls' exact sum (before migration 0022, its amount was that sum).
  const invoiced = await queryRows<{
    direction: "inbound" | "outbound";
    prefix: string | null;
    description: string;
    calls: string;
    seconds: string;
    amount: string;
    exact: string;
  }>(
    tx,
    sql`SELECT l.direction, min(l.prefix) AS prefix, l.description, sum(l.calls)::text AS calls,
               sum(l.billed_seconds)::text AS seconds, sum(l.amount_micros)::text AS amount,
               sum(coalesce(l.exact_micros, l.amount_micros))::text AS exact
        FROM invoice_lines l JOIN invoices d ON d.id = l.invoice_id
        WHERE (d.id = ${invoiceId} OR d.invoice_id = ${invoiceId}) AND l.kind = 'usage'
        GROUP BY l.direction, l.description`,
  );
  return new Map<string, Invoiced>(
    invoiced.map((r) => [
      usageKey(r),
      {
        direction: r.direction,
        prefix: r.prefix,
        description: r.description,
        calls: Number(r.calls),
        billedSeconds: Number(r.seconds),
        amountMicros: BigInt(r.amount),
        exactMicros: BigInt(r.exact),
      },
    ]),
  );
}

/**
 * The note's usage lines: one per usage key whose exact amount moved (new or changed lines, then lines whose calls are
 * all gone), and the exact sum of their changes.
 */
function usageChanges(
  now: readonly ExactUsage[],
  before: ReadonlyMap<string, Invoiced>,
  currency: string,
): { usage: NewLine[]; exact: bigint } {
  const usage: NewLine[] = [];
  const seen = new Set<string>();
  let exact = 0n;
  for (const l of now) {
    const key = usageKey(l);
    seen.add(key);
    const was = before.get(key);
    const delta = l.exactMicros - (was?.exactMicros ?? 0n);
    if (delta === 0n) continue;
    exact += delta;
    // The line's billed amount becomes its exact sum now, rounded to the minor unit.
    usage.push({
      kind: "usage",
      direction: l.direction,
      prefix: l.prefix,
      description: l.description,
      calls: l.calls - (was?.calls ?? 0),
      billedSeconds: l.billedSeconds - (was?.billedSeconds ?? 0),
      amountMicros: roundToMinorUnit(l.exactMicros, currency) - (was?.amountMicros ?? 0n),
      exactMicros: delta,
      occurredAt: null,
    });
  }
  for (const [key, was] of before) {
    if (seen.has(key) || (was.exactMicros === 0n && was.amountMicros === 0n)) continue;
    exact -= was.exactMicros;
    usage.push({
      kind: "usage",
      direction: was.direction,
      prefix: was.prefix,
      description: was.description,
      calls: -was.calls,
      billedSeconds: -was.billedSeconds,
      amountMicros: -was.amountMicros,
      exactMicros: -was.exactMicros,
      occurredAt: null,
    });
  }
  return { usage, exact };
}
