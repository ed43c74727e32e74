import type { InvoiceSummary } from "@/lib/invoices/schemas";
import { formatAmount, toMicros } from "@/lib/portal/format";
import { Card } from "@/components/ui/card";

const KIND = { invoice: "Invoice", credit_note: "Credit note", debit_note: "Debit note" } as const;

/** "Oct 2025": the period's month in its zone (a period is one calendar month there, docs/contract.md §10). */
function periodLabel(doc: InvoiceSummary): string {
  return new Intl.DateTimeFormat("en-GB", { timeZone: doc.timeZone, month: "long", year: "numeric" }).format(
    new Date(doc.periodStart),
  );
}

function issuedLabel(doc: InvoiceSummary): string {
  return new Intl.DateTimeFormat("en-GB", { timeZone: doc.timeZone, dateStyle: "medium" }).format(
    new Date(doc.issuedAt),
  );
}

/**
 * Invoices and notes, newest first, each with its PDF and the period's calls as CSV (the /v1 downloads, which the
 * session cookie opens). A note names the invoice it corrects.
 */
export function InvoiceList({ documents, showAccount }: { documents: InvoiceSummary[]; showAccount: boolean }) {
  if (documents.length === 0)
    return (
      <Card role="note" className="text-sm text-slate-600">
        No invoices yet. The first is issued once the account&apos;s first calendar month has closed.
      </Card>
    );
  const numbers = new Map(documents.map((d) => [d.id, d.number]));
  return (
    <Card padding="none" className="overflow-x-auto">
      <table className="w-full text-sm">
        <caption className="sr-only">Invoices and notes, newest first</caption>
        <thead className="border-b border-slate-200 text-left text-xs font-medium text-slate-500">
          <tr>
            <th scope="col" className="px-4 py-2">
              Number
            </th>
            <th scope="col" className="px-4 py-2">
              Document
            </th>
            <th scope="col" className="px-4 py-2">
              Period
            </th>
            {showAccount ? (
              <th scope="col" className="px-4 py-2">
                Account
              </th>
            ) : null}
            <th scope="col" className="px-4 py-2">
              Issued
            </th>
            <th scope="col" className="px-4 py-2 text-right">
              Total
            </th>
            <th scope="col" className="px-4 py-2">
              Currency
            </th>
            <th scope="col" className="px-4 py-2">
              <span className="sr-only">Downloads</span>
            </th>
          </tr>
        </thead>
        <tbody>
          {documents.map((doc) => (
            <tr key={doc.id} className="border-b border-slate-100 last:border-0">
              <td className="px-4 py-2 font-medium whitespace-nowrap text-slate-900">{doc.number}</td>
              <td className="px-4 py-2 text-slate-700">
                {KIND[doc.kind]}
                {doc.invoiceId ? (
                  <span className="text-slate-500"> for {numbers.get(doc.invoiceId) ?? "an earlier invoice"}</span>
                ) : null}
              </td>
              <td className="px-4 py-2 whitespace-nowrap text-slate-700">
                {periodLabel(doc)} <span className="text-xs text-slate-500">({doc.timeZone})</span>
              </td>
              {showAccount ? (
                <td className="px-4 py-2 font-mono text-xs text-slate-600">{doc.billingGroupId}</td>
              ) : null}
              <td className="px-4 py-2 whitespace-nowrap text-slate-700">{issuedLabel(doc)}</td>
              <td className="px-4 py-2 text-right whitespace-nowrap tabular-nums text-slate-900">
                {formatAmount(toMicros(doc.total), doc.currency)}
              </td>
              <td className="px-4 py-2 text-slate-600">{doc.currency}</td>
              <td className="px-4 py-2 whitespace-nowrap">
                <a
                  href={`/v1/invoices/${doc.id}/pdf`}
                  className="font-medium text-brand-700 hover:underline"
                  aria-label={`Download ${doc.number} as PDF`}
                  download
                >
                  PDF
                </a>
                <span className="text-slate-300"> · </span>
                <a
                  href={`/v1/invoices/${doc.id}/calls.csv`}
                  className="font-medium text-brand-700 hover:underline"
                  aria-label={`Download the calls of ${doc.number} as CSV`}
                  download
                >
                  Calls CSV
                </a>
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </Card>
  );
}
