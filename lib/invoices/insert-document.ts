import { sql } from "drizzle-orm";
import { queryRows, type Executor } from "@/lib/db/client";
import { recordAuditEvent } from "@/lib/audit/record-audit-event";
import { newId } from "@/lib/ids/ids";
import { enqueueDocumentMails } from "./invoice-mail";

export type DocumentKind = "invoice" | "credit_note" | "debit_note";

/** Number prefixes; each kind is its own gapless series (document_counters.series = the kind). */
export const NUMBER_PREFIX: Record<DocumentKind, string> = { invoice: "INV", credit_note: "CN", debit_note: "DN" };

export interface NewLine {
  /** usage and rounding lines make the subtotal (minor units); topup and adjustment are the balance's. */
  kind: "usage" | "rounding" | "topup" | "adjustment";
  direction: "inbound" | "outbound" | null;
  prefix: string | null;
  description: string;
  calls: number;
  billedSeconds: number;
  amountMicros: bigint;
  /** A usage line's exact sum of prices (amountMicros is it rounded to the minor unit); absent or null on others. */
  exactMicros?: bigint | null;
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
  /**
   * The account issuing it (a reseller invoicing its child: its own number series, `INV-<its id, upper case>-000001`); null or
   * absent: the operator (`INV-000001`).
   */
  issuerGroupId?: string | null;
  subtotalMicros: bigint;
  taxMicros: bigint;
  totalMicros: bigint;
  /** The sub-minor-unit remainder carried to the group's next document (docs/contract.md §10); absent: 0. */
  remainderMicros?: bigint;
  /** The period's balance; invoices only. */
  balance: { opening: bigint; topups: bigint; adjustments: bigint; debits: bigint; closing: bigint } | null;
  lines: NewLine[];
}

const big = (v: bigint | undefined) => (v === undefined ? null : v.toString());

/**
 * A series' counter row and its numbers' prefix: the kind's for the operator (`INV`), the kind's and issuer's for an
 * account (`INV-S12B6SKGK0DTA1EJ`: its id without `bg_`, upper case, so numbers stay unique across issuers and no
 * screen shows an account id as text).
 */
export function seriesOf(
  kind: DocumentKind,
  issuerGroupId: string | null | undefined,
): { series: string; prefix: string } {
  return issuerGroupId
    ? {
        series: `${kind}:${issuerGroupId}`,
        prefix: `${NUMBER_PREFIX[kind]}-${issuerGroupId.replace(/^bg_/, "").toUpperCase()}`,
      }
    : { series: kind, prefix: NUMBER_PREFIX[kind] };
}

/**
 * Issues documents of one kind, one statement per series (the operator's, each issuing account's, in the series'
 * order, so concurrent runs lock counters in one order): draws the next numbers of their series (the counter row is locked
 * until the transaction commits, so numbers are gapless and in commit order: a rolled-back issue gives its numbers
 * back), in the order given, and inserts the documents and their lines. issued_at is the time of the insert, under the
 * counter's lock (not the transaction's start), so a series' issue times follow its numbers. Call it last in the issuing transaction: the
 * counter row is the one lock every issue shares. Returns each document's id and number, in order.
 */
export async function insertDocuments(
  tx: Executor,
  kind: DocumentKind,
  docs: readonly NewDocument[],
): Promise<{ id: string; number: string }[]> {
  if (docs.length === 0) return [];
  if (docs.some((d) => d.kind !== kind)) throw new RangeError("one series per statement");
  const ids = docs.map(() => newId("inv"));
  const bySeries = new Map<string, number[]>();
  for (const [i, doc] of docs.entries()) {
    const { series } = seriesOf(kind, doc.issuerGroupId);
    bySeries.set(series, [...(bySeries.get(series) ?? []), i]);
  }
  const issued: { id: string; number: string }[] = new Array(docs.length);
  for (const series of [...bySeries.keys()].sort()) {
    const at = bySeries.get(series)!;
    const numbered = await insertNumbered(
      tx,
      kind,
      at.map((i) => ids[i]),
      at.map((i) => docs[i]),
    );
    for (const [n, i] of at.entries()) issued[i] = numbered[n];
  }
  await auditIssued(tx, kind, docs, issued);
  // The owner and billing members hear of each document once it commits (lib/mail/outbox.ts).
  await enqueueDocumentMails(
    tx,
    issued.map((d, i) => ({ ...d, doc: docs[i] })),
  );
  return issued;
}

/** The documents as the JSON rows the insert reads (json_to_recordset), numbered 1.. in the order given. */
function documentsJson(ids: readonly string[], docs: readonly NewDocument[]): string {
  return JSON.stringify(
    docs.map((doc, i) => ({
      id: ids[i],
      n: i + 1,
      g: doc.billingGroupId,
      inv: doc.invoiceId,
      s: doc.periodStart.toISOString(),
      e: doc.periodEnd.toISOString(),
      tz: doc.timeZone,
      mode: doc.billingMode,
      rate: doc.taxRatePpm,
      cur: doc.currency,
      cust: doc.customerName,
      iname: doc.issuerName,
      iaddr: doc.issuerAddress,
      sub: doc.subtotalMicros.toString(),
      tax: doc.taxMicros.toString(),
      tot: doc.totalMicros.toString(),
      r: (doc.remainderMicros ?? 0n).toString(),
      o: big(doc.balance?.opening),
      t: big(doc.balance?.topups),
      a: big(doc.balance?.adjustments),
      d: big(doc.balance?.debits),
      c: big(doc.balance?.closing),
    })),
  );
}

/** Every document's lines as JSON rows, each numbered 1.. within its document. */
function linesJson(ids: readonly string[], docs: readonly NewDocument[]): string {
  return JSON.stringify(
    docs.flatMap((doc, i) =>
      doc.lines.map((l, n) => ({
        doc: ids[i],
        n: n + 1,
        k: l.kind,
        dir: l.direction,
        p: l.prefix,
        d: l.description,
        c: l.calls,
        s: l.billedSeconds,
        a: l.amountMicros.toString(),
        x: l.exactMicros?.toString() ?? null,
        at: l.occurredAt?.toISOString() ?? null,
      })),
    ),
  );
}

/**
 * The one statement: draws the series' next numbers and inserts the documents and their lines. Ids in order. Every
 * document is of one series (kind and issuer).
 */
async function insertNumbered(
  tx: Executor,
  kind: DocumentKind,
  ids: readonly string[],
  docs: readonly NewDocument[],
): Promise<{ id: string; number: string }[]> {
  const documents = documentsJson(ids, docs);
  const lines = linesJson(ids, docs);
  const { series, prefix } = seriesOf(kind, docs[0].issuerGroupId);
  const rows = await queryRows<{ id: string; number: string }>(
    tx,
    sql`WITH counter AS (
          INSERT INTO document_counters AS c (series, last_number) VALUES (${series}, ${docs.length})
          ON CONFLICT (series) DO UPDATE SET last_number = c.last_number + ${docs.length}
          RETURNING last_number - ${docs.length} AS before
        ), inserted AS (
          INSERT INTO invoices (id, kind, number, billing_group_id, invoice_id, period_start, period_end, time_zone,
            billing_mode, tax_rate_ppm, currency, customer_name, issuer_name, issuer_address, subtotal_micros, tax_micros,
            total_micros, remainder_micros, opening_balance_micros, topups_micros, adjustments_micros, debits_micros,
            closing_balance_micros, issued_at)
          SELECT x.id, ${kind}, ${prefix} || '-' || lpad((counter.before + x.n)::text, 6, '0'), x.g, x.inv,
            x.s, x.e, x.tz, x.mode, x.rate, x.cur, x.cust, x.iname, x.iaddr, x.sub, x.tax, x.tot, x.r, x.o, x.t, x.a, x.d, x.c,
            clock_timestamp()
          FROM counter, json_to_recordset(${documents}::json) AS x(id text, n int, g text, inv text, s timestamptz,
            e timestamptz, tz text, mode text, rate int, cur text, cust text, iname text, iaddr text, sub bigint,
            tax bigint, tot bigint, r bigint, o bigint, t bigint, a bigint, d bigint, c bigint)
          ORDER BY x.n
          RETURNING id, number
        ), lines AS (
          INSERT INTO invoice_lines (invoice_id, line_no, kind, direction, prefix, description, calls, billed_seconds,
            amount_micros, exact_micros, occurred_at)
          SELECT l.doc, l.n, l.k, l.dir, l.p, l.d, l.c, l.s, l.a, l.x, l.at
          FROM inserted JOIN json_to_recordset(${lines}::json) AS l(doc text, n int, k text, dir text, p text, d text,
            c bigint, s bigint, a bigint, x bigint, at timestamptz) ON l.doc = inserted.id
        )
        SELECT id, number FROM inserted`,
  );
  const byId = new Map(rows.map((r) => [r.id, r.number]));
  return ids.map((id) => ({ id, number: byId.get(id)! }));
}

/** The audit log (docs/contract.md §9): each document's issue, by the system, in the issuing transaction. */
async function auditIssued(
  tx: Executor,
  kind: DocumentKind,
  docs: readonly NewDocument[],
  issued: readonly { id: string; number: string }[],
): Promise<void> {
  for (const [i, doc] of docs.entries())
    await recordAuditEvent(tx, {
      actor: { type: "system", id: null, label: "invoice run" },
      action: kind === "invoice" ? "invoice.issued" : "note.issued",
      billingGroupId: doc.billingGroupId,
      targetType: "invoice",
      targetId: issued[i].id,
      address: null,
      after: {
        number: issued[i].number,
        kind,
        invoiceId: doc.invoiceId,
        periodStart: doc.periodStart,
        periodEnd: doc.periodEnd,
        currency: doc.currency,
        subtotalMicros: doc.subtotalMicros,
        taxMicros: doc.taxMicros,
        totalMicros: doc.totalMicros,
      },
    });
}

/** One document (insertDocuments of one). */
export async function insertDocument(tx: Executor, doc: NewDocument): Promise<{ id: string; number: string }> {
  const [issued] = await insertDocuments(tx, doc.kind, [doc]);
  return issued;
}
