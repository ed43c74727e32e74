import { microsToNumber } from "@/lib/money/micros";
import type { StoredDocument, StoredInvoice } from "./read-invoices";
import type { Invoice, InvoiceSummary } from "./schemas";
import { formatTaxRatePercent } from "./tax";

export function serializeInvoiceSummary(d: StoredDocument): InvoiceSummary {
  return {
    id: d.id,
    kind: d.kind,
    number: d.number,
    billingGroupId: d.billingGroupId,
    invoiceId: d.invoiceId,
    periodStart: d.periodStart.toISOString(),
    periodEnd: d.periodEnd.toISOString(),
    timeZone: d.timeZone,
    currency: d.currency,
    subtotal: microsToNumber(d.subtotalMicros),
    tax: microsToNumber(d.taxMicros),
    total: microsToNumber(d.totalMicros),
    issuedAt: d.issuedAt.toISOString(),
  };
}

/** What a prepaid or postpaid customer owes for a document (docs/contract.md §10). */
export function amountDueMicros(d: Pick<StoredDocument, "billingMode" | "totalMicros">): bigint {
  return d.billingMode === "postpaid" ? d.totalMicros : 0n;
}

export function serializeInvoice(d: StoredInvoice): Invoice {
  return {
    ...serializeInvoiceSummary(d),
    billingMode: d.billingMode,
    taxRate: formatTaxRatePercent(d.taxRatePpm),
    customerName: d.customerName,
    issuer: { name: d.issuerName, address: d.issuerAddress },
    amountDue: microsToNumber(amountDueMicros(d)),
    balance: d.balance && {
      opening: microsToNumber(d.balance.opening),
      topups: microsToNumber(d.balance.topups),
      adjustments: microsToNumber(d.balance.adjustments),
      debits: microsToNumber(d.balance.debits),
      closing: microsToNumber(d.balance.closing),
    },
    lines: d.lines.map((l) => ({
      kind: l.kind,
      direction: l.direction,
      prefix: l.prefix,
      description: l.description,
      calls: l.calls,
      billedSeconds: l.billedSeconds,
      amount: microsToNumber(l.amountMicros),
      occurredAt: l.occurredAt?.toISOString() ?? null,
    })),
    notes: d.notes.map((n) => ({
      id: n.id,
      kind: n.kind,
      number: n.number,
      total: microsToNumber(n.totalMicros),
      issuedAt: n.issuedAt.toISOString(),
    })),
    pdfUrl: `/v1/invoices/${d.id}/pdf`,
    callsCsvUrl: `/v1/invoices/${d.id}/calls.csv`,
  };
}
