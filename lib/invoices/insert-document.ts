import { sql } from "drizzle-orm";
import { queryRows, type Executor } from "@/lib/db/client";
import { newId } from "@/lib/ids/ids";

export type DocumentKind = "invoice" | "credit_note" | "debit_note";

/** Number prefixes; each kind is its own gapless series (document_counters.series = the kind). */
export const NUMBER_PREFIX: Record<DocumentKind, string> = { invoice: "INV", credit_note: "CN", debit_note: "DN" };

export interface NewLine {
  kind: "usage" | "topup" | "adjustment";
  direction: "inbound" | "outbound" | null;
  prefix: string | null;
  description: string;
  calls: number;
  billedSeconds: number;
  amountMicros: bigint;
  occurredAt: Date | null;
}

export interface NewDocument {
  kind: DocumentKind;
  billingGroupId: string;
  /** The invoice a note corrects; null on an invoice. */
  invoiceId: string | null;
  periodStart: Date;
  periodEnd: Date;
  timeZone: string;
  billingMode: "prepaid" | "postpaid";
  taxRatePpm: number;
  currency: string;
  customerName: string;
  issuerName: string;
  issuerAddress: string;
  subtotalMicros: bigint;
  taxMicros: bigint;
  totalMicros: bigint;
  /** The period's balance; invoices only. */
  balance: { opening: bigint; topups: bigint; adjustments: bigint; debits: bigint; closing: bigint } | null;
  lines: NewLine[];
}

const big = (v: bigint | undefined) => (v === undefined ? null : v.toString());

/**
 * Issues a document in one statement: draws the next number of its series (the counter row is locked until the
 * transaction commits, so numbers are gapless and in commit order: a rolled-back issue gives its number back), inserts
 * the document and its lines. Call it last in the issuing transaction: the counter row is the one lock every issue
 * shares. Returns the id and number.
 */
export async function insertDocument(tx: Executor, doc: NewDocument): Promise<{ id: string; number: string }> {
  const id = newId("inv");
  const lines = JSON.stringify(
    doc.lines.map((l, i) => ({
      n: i + 1,
      k: l.kind,
      dir: l.direction,
      p: l.prefix,
      d: l.description,
      c: l.calls,
      s: l.billedSeconds,
      a: l.amountMicros.toString(),
      at: l.occurredAt?.toISOString() ?? null,
    })),
  );
  const [row] = await queryRows<{ number: string }>(
    tx,
    sql`WITH counter AS (
          INSERT INTO document_counters AS c (series, last_number) VALUES (${doc.kind}, 1)
          ON CONFLICT (series) DO UPDATE SET last_number = c.last_number + 1
          RETURNING last_number
        ), document AS (
          INSERT INTO invoices (id, kind, number, billing_group_id, invoice_id, period_start, period_end, time_zone,
            billing_mode, tax_rate_ppm, currency, customer_name, issuer_name, issuer_address, subtotal_micros, tax_micros,
            total_micros, opening_balance_micros, topups_micros, adjustments_micros, debits_micros, closing_balance_micros)
          SELECT ${id}, ${doc.kind}, ${NUMBER_PREFIX[doc.kind]} || '-' || lpad(last_number::text, 6, '0'),
            ${doc.billingGroupId}, ${doc.invoiceId}, ${doc.periodStart.toISOString()}::timestamptz,
            ${doc.periodEnd.toISOString()}::timestamptz, ${doc.timeZone}, ${doc.billingMode}, ${doc.taxRatePpm},
            ${doc.currency}, ${doc.customerName}, ${doc.issuerName}, ${doc.issuerAddress},
            ${doc.subtotalMicros.toString()}::bigint, ${doc.taxMicros.toString()}::bigint, ${doc.totalMicros.toString()}::bigint,
            ${big(doc.balance?.opening)}::bigint, ${big(doc.balance?.topups)}::bigint, ${big(doc.balance?.adjustments)}::bigint,
            ${big(doc.balance?.debits)}::bigint, ${big(doc.balance?.closing)}::bigint
          FROM counter
          RETURNING id, number
        ), lines AS (
          INSERT INTO invoice_lines (invoice_id, line_no, kind, direction, prefix, description, calls, billed_seconds,
            amount_micros, occurred_at)
          SELECT document.id, x.n, x.k, x.dir, x.p, x.d, x.c, x.s, x.a, x.at FROM document,
            json_to_recordset(${lines}::json) AS x(n int, k text, dir text, p text, d text, c bigint, s bigint, a bigint, at timestamptz)
        )
        SELECT number FROM document`,
  );
  return { id, number: row.number };
}
