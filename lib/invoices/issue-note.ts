import { sql } from "drizzle-orm";
import { queryRows, type Db } from "@/lib/db/client";
import { lockGroupForInvoicing } from "./group-lock";
import { insertDocument, type NewLine } from "./insert-document";
import { usageDescription, type Issuer } from "./issue-invoice";
import { readPeriodUsage } from "./period-usage";
import { taxMicros } from "./tax";

interface Invoiced {
  direction: "inbound" | "outbound";
  prefix: string | null;
  calls: number;
  billedSeconds: number;
  amountMicros: bigint;
}

const lineKey = (l: { direction: string; prefix: string | null }) =>
  `${l.direction}\u0000${l.prefix ?? ""}\u0000${l.prefix === null}`;

/**
 * Compares an issued invoice's period with its calls now (re-rated, late or deleted calls) and, when an amount
 * differs, issues a credit note (the period costs less) or a debit note (more) referencing it (docs/contract.md §10):
 * one line per direction and destination whose amount moved, by the difference; tax = tax(new subtotal) - the tax
 * invoiced so far. Invoice + notes then equal the period's calls exactly. Returns the note's number, or null.
 */
export async function issueNoteIfChanged(db: Db, invoiceId: string, issuer: Issuer): Promise<string | null> {
  return db.transaction(async (tx) => {
    const [invoice] = await queryRows<{
      billing_group_id: string;
      period_start: Date | string;
      period_end: Date | string;
    }>(
      tx,
      sql`SELECT billing_group_id, period_start, period_end FROM invoices WHERE id = ${invoiceId} AND kind = 'invoice'`,
    );
    if (!invoice) return null;
    const group = await lockGroupForInvoicing(tx, invoice.billing_group_id);
    if (!group) return null;
    const start = new Date(invoice.period_start);
    const end = new Date(invoice.period_end);
    // The invoice and its notes so far (read under the group's lock: another process's note is committed and seen).
    const [sums] = await queryRows<{
      subtotal: string;
      tax: string;
      currency: string;
      rate: number;
      zone: string;
      mode: "prepaid" | "postpaid";
    }>(
      tx,
      sql`SELECT sum(subtotal_micros)::text AS subtotal, sum(tax_micros)::text AS tax,
                 min(currency) FILTER (WHERE kind = 'invoice') AS currency,
                 min(tax_rate_ppm) FILTER (WHERE kind = 'invoice') AS rate,
                 min(time_zone) FILTER (WHERE kind = 'invoice') AS zone,
                 min(billing_mode) FILTER (WHERE kind = 'invoice') AS mode
          FROM invoices WHERE id = ${invoiceId} OR invoice_id = ${invoiceId}`,
    );
    const invoiced = await queryRows<{
      direction: "inbound" | "outbound";
      prefix: string | null;
      calls: string;
      seconds: string;
      amount: string;
    }>(
      tx,
      sql`SELECT l.direction, l.prefix, sum(l.calls)::text AS calls, sum(l.billed_seconds)::text AS seconds,
                 sum(l.amount_micros)::text AS amount
          FROM invoice_lines l JOIN invoices d ON d.id = l.invoice_id
          WHERE (d.id = ${invoiceId} OR d.invoice_id = ${invoiceId}) AND l.kind = 'usage'
          GROUP BY l.direction, l.prefix`,
    );
    const before = new Map<string, Invoiced>(
      invoiced.map((r) => [
        lineKey(r),
        {
          direction: r.direction,
          prefix: r.prefix,
          calls: Number(r.calls),
          billedSeconds: Number(r.seconds),
          amountMicros: BigInt(r.amount),
        },
      ]),
    );
    const now = await readPeriodUsage(tx, invoice.billing_group_id, start, end);
    const lines: NewLine[] = [];
    const seen = new Set<string>();
    for (const l of now) {
      const key = lineKey(l);
      seen.add(key);
      const was = before.get(key);
      const delta = l.amountMicros - (was?.amountMicros ?? 0n);
      if (delta === 0n) continue;
      lines.push({
        kind: "usage",
        direction: l.direction,
        prefix: l.prefix,
        description: usageDescription(l),
        calls: l.calls - (was?.calls ?? 0),
        billedSeconds: l.billedSeconds - (was?.billedSeconds ?? 0),
        amountMicros: delta,
        occurredAt: null,
      });
    }
    for (const [key, was] of before) {
      if (seen.has(key) || was.amountMicros === 0n) continue;
      lines.push({
        kind: "usage",
        direction: was.direction,
        prefix: was.prefix,
        description: usageDescription({ prefix: was.prefix, rateDescription: null }),
        calls: -was.calls,
        billedSeconds: -was.billedSeconds,
        amountMicros: -was.amountMicros,
        occurredAt: null,
      });
    }
    if (lines.length === 0) return null;
    const difference = lines.reduce((sum, l) => sum + l.amountMicros, 0n);
    const subtotalBefore = BigInt(sums.subtotal);
    const tax = taxMicros(subtotalBefore + difference, sums.rate, sums.currency) - BigInt(sums.tax);
    const total = difference + tax;
    const { number } = await insertDocument(tx, {
      kind: total < 0n ? "credit_note" : "debit_note",
      billingGroupId: invoice.billing_group_id,
      invoiceId,
      periodStart: start,
      periodEnd: end,
      timeZone: sums.zone,
      billingMode: sums.mode,
      taxRatePpm: sums.rate,
      currency: sums.currency,
      customerName: group.name,
      issuerName: issuer.name,
      issuerAddress: issuer.address,
      subtotalMicros: difference,
      taxMicros: tax,
      totalMicros: total,
      balance: null,
      lines,
    });
    return number;
  });
}
