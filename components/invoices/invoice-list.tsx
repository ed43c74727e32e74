import Link from "next/link";
import type { PortalInvoiceRow } from "@/lib/portal/invoices";
import { formatAmount, toMicros } from "@/lib/portal/format";
import { pathOf, PORTAL_PAGES } from "@/lib/portal/pages";
import { Card } from "@/components/ui/card";
import { dayLabel, KIND, periodLabel, StandingBadge } from "./invoice-labels";
import { InvoiceDownloads } from "./invoice-downloads";
import { LinkedRow } from "./linked-row";

/**
 * Invoices and notes, newest first, each opening its own page (the row, or its number's link), with the name it
 * bills, its period, whether it is prepaid or due, its PDF and the period's calls as CSV (the /v1 downloads, which
 * the session cookie opens). A note names the invoice it corrects.
 */
export function InvoiceList({ documents, showAccountId }: { documents: PortalInvoiceRow[]; showAccountId: boolean }) {
  if (documents.length === 0)
    return (
      <Card role="note" className="text-sm text-slate-600">
        No invoices yet. The first is issued once the account&apos;s first calendar month has closed.
      </Card>
    );
  const numbers = new Map(documents.map((d) => [d.id, d.number]));
  return (
    <Card padding="none" className="overflow-x-auto">
      <InvoiceCards documents={documents} showAccountId={showAccountId} numbers={numbers} />
      <table className="hidden w-full text-sm sm:table">
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
              Account
            </th>
            <th scope="col" className="px-4 py-2">
              Period
            </th>
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
              Payment
            </th>
            <th scope="col" className="px-4 py-2">
              <span className="sr-only">Downloads</span>
            </th>
          </tr>
        </thead>
        <tbody>
          {documents.map((doc) => {
            const href = pathOf(PORTAL_PAGES.invoice, doc.id);
            return (
              <LinkedRow key={doc.id} href={href} className="border-b border-slate-100 last:border-0">
                <td className="px-4 py-2 font-medium whitespace-nowrap">
                  <Link href={href} className="text-brand-700 hover:underline" data-testid="invoice-link">
                    {doc.number}
                  </Link>
                </td>
                <td className="px-4 py-2 text-slate-700">
                  {KIND[doc.kind]}
                  {doc.invoiceId ? (
                    <span className="text-slate-500"> for {numbers.get(doc.invoiceId) ?? "an earlier invoice"}</span>
                  ) : null}
                </td>
                <td className="px-4 py-2 text-slate-700">
                  {/* A person reads the name; staff get the account's id on hover. */}
                  <span title={showAccountId ? doc.billingGroupId : undefined}>{doc.customerName}</span>
                </td>
                <td className="px-4 py-2 whitespace-nowrap text-slate-700">
                  {periodLabel(doc)} <span className="text-xs text-slate-500">({doc.timeZone})</span>
                </td>
                <td className="px-4 py-2 whitespace-nowrap text-slate-700">{dayLabel(doc.issuedAt, doc.timeZone)}</td>
                <td className="px-4 py-2 text-right whitespace-nowrap tabular-nums text-slate-900">
                  {formatAmount(toMicros(doc.total), doc.currency)}
                </td>
                <td className="px-4 py-2 text-slate-600">{doc.currency}</td>
                <td className="px-4 py-2">
                  <StandingBadge standing={doc.standing} />
                </td>
                <td className="px-4 py-2 whitespace-nowrap">
                  <InvoiceDownloads
                    id={doc.id}
                    number={doc.number}
                    linkClassName="font-medium text-brand-700 hover:underline"
                    separator={<span className="text-slate-300"> · </span>}
                  />
                </td>
              </LinkedRow>
            );
          })}
        </tbody>
      </table>
    </Card>
  );
}

/**
 * Below `sm`: a card per document, its total and currency beside its number (the table's last columns would be
 * off-screen on a phone), as the call log does.
 */
function InvoiceCards({
  documents,
  showAccountId,
  numbers,
}: {
  documents: PortalInvoiceRow[];
  showAccountId: boolean;
  numbers: Map<string, string>;
}) {
  return (
    <ul className="divide-y divide-slate-100 sm:hidden" aria-label="Invoices and notes, newest first">
      {documents.map((doc) => (
        <li key={doc.id} className="flex flex-col gap-1 px-4 py-3 text-sm" data-testid="invoice-card">
          <div className="flex items-start justify-between gap-3">
            <span className="min-w-0">
              <Link href={pathOf(PORTAL_PAGES.invoice, doc.id)} className="font-medium text-brand-700 hover:underline">
                {doc.number}
              </Link>{" "}
              <span className="text-slate-700">
                {KIND[doc.kind]}
                {doc.invoiceId ? (
                  <span className="text-slate-500"> for {numbers.get(doc.invoiceId) ?? "an earlier invoice"}</span>
                ) : null}
              </span>
            </span>
            <span className="shrink-0 text-right font-semibold tabular-nums text-slate-900" data-field="total">
              {formatAmount(toMicros(doc.total), doc.currency)}{" "}
              <span className="text-xs font-normal text-slate-600" data-field="currency">
                {doc.currency}
              </span>
            </span>
          </div>
          <div className="flex flex-wrap justify-between gap-x-3 text-xs text-slate-600">
            <span>
              {periodLabel(doc)} ({doc.timeZone})
            </span>
            <span>Issued {dayLabel(doc.issuedAt, doc.timeZone)}</span>
          </div>
          <div className="flex items-center justify-between gap-3 text-xs text-slate-700">
            {/* A person reads the name; staff get the account's id on hover. */}
            <span title={showAccountId ? doc.billingGroupId : undefined}>{doc.customerName}</span>
            <StandingBadge standing={doc.standing} />
          </div>
          <div className="flex gap-1 text-sm">
            {/* Roomy targets on a phone; the first one's padding sits in the card's margin. */}
            <InvoiceDownloads
              id={doc.id}
              number={doc.number}
              linkClassName="rounded-md px-2 py-1.5 font-medium text-brand-700 hover:underline first:-ml-2"
            />
          </div>
        </li>
      ))}
    </ul>
  );
}
