import Link from "next/link";
import type { ReactNode } from "react";
import type { PortalInvoice } from "@/lib/portal/invoices";
import { formatAmount, formatCount, formatMinutes, toMicros } from "@/lib/portal/format";
import { pathOf, PORTAL_PAGES } from "@/lib/portal/pages";
import { Card, CardTitle } from "@/components/ui/card";
import { dayLabel, KIND, periodDays, StandingBadge } from "./invoice-labels";
import { InvoiceDownloads } from "./invoice-downloads";

// One invoice or note as its PDF has it (lib/invoices/render-pdf.ts): whom it bills and when, the usage lines by
// destination name and direction, subtotal, tax, total and amount due, the period's balance, and the notes that
// correct it. Amounts are whole minor units of the currency (docs/contract.md §10); the balance is rounded like the PDF.

const DIRECTION = { inbound: "Inbound", outbound: "Outbound" } as const;

function Fact({ term, children }: { term: string; children: ReactNode }) {
  return (
    <div className="flex flex-col gap-0.5">
      <dt className="text-xs font-medium text-slate-500">{term}</dt>
      <dd className="text-sm text-slate-900">{children}</dd>
    </div>
  );
}

export function InvoiceDetail({ invoice, showAccountId }: { invoice: PortalInvoice; showAccountId: boolean }) {
  const money = (amount: number) => formatAmount(toMicros(amount), invoice.currency);
  const usage = invoice.lines.filter((l) => l.kind === "usage" || l.kind === "rounding");
  const ledger = invoice.lines.filter((l) => l.kind === "topup" || l.kind === "adjustment");
  const title = `${KIND[invoice.kind]} ${invoice.number}`;
  return (
    <div className="flex flex-col gap-4">
      <div className="flex flex-wrap items-start justify-between gap-3">
        <div className="flex flex-col gap-1">
          <h1 className="flex flex-wrap items-center gap-2 text-2xl font-semibold tracking-tight">
            {title} <StandingBadge standing={invoice.standing} />
          </h1>
          <p className="text-sm text-slate-600">
            {invoice.customerName} · {periodDays(invoice)} ({invoice.timeZone})
          </p>
        </div>
        <div className="flex flex-wrap gap-2" data-testid="invoice-downloads">
          <InvoiceDownloads
            id={invoice.id}
            number={invoice.number}
            linkClassName="rounded-lg border border-slate-300 bg-white px-3 py-1.5 text-sm font-medium text-brand-700 hover:bg-slate-50"
          />
        </div>
      </div>

      <Card aria-labelledby="invoice-facts">
        <CardTitle id="invoice-facts" className="sr-only">
          Details
        </CardTitle>
        <dl className="grid grid-cols-1 gap-4 sm:grid-cols-2 lg:grid-cols-4">
          <Fact term="Bill to">
            {invoice.customerName}
            {showAccountId ? (
              <span className="block font-mono text-xs text-slate-500">{invoice.billingGroupId}</span>
            ) : null}
          </Fact>
          <Fact term="Issued">{dayLabel(invoice.issuedAt, invoice.timeZone)}</Fact>
          <Fact term="Account">
            {invoice.billingMode === "prepaid" ? "Prepaid" : "Postpaid"}, amounts in {invoice.currency}
          </Fact>
          <Fact term="From">
            {invoice.issuer.name}
            {invoice.issuer.address ? (
              <span className="block text-xs whitespace-pre-line text-slate-600">{invoice.issuer.address}</span>
            ) : null}
          </Fact>
          {invoice.invoiceId ? (
            <Fact term="Corrects">
              <Link href={pathOf(PORTAL_PAGES.invoice, invoice.invoiceId)} className="text-brand-700 hover:underline">
                Invoice {invoice.invoiceNumber ?? invoice.invoiceId}
              </Link>
            </Fact>
          ) : null}
        </dl>
      </Card>

      <Card padding="none" aria-labelledby="invoice-lines-title" data-testid="invoice-lines">
        <CardTitle id="invoice-lines-title" className="px-4 pt-4">
          {invoice.kind === "invoice" ? "Calls of the period" : "Changes to the invoiced calls"}
        </CardTitle>
        <div className="overflow-x-auto" role="region" aria-label="Lines table" tabIndex={0}>
          <table className="w-full text-sm">
            <caption className="sr-only">
              Lines of {title} by destination name and direction, with subtotal, tax and total in {invoice.currency}
            </caption>
            <thead className="border-b border-slate-200 text-left text-xs font-medium text-slate-500">
              <tr>
                <th scope="col" className="px-4 py-2">
                  Destination
                </th>
                <th scope="col" className="px-4 py-2">
                  Direction
                </th>
                <th scope="col" className="px-4 py-2 text-right">
                  Calls
                </th>
                <th scope="col" className="px-4 py-2 text-right">
                  Minutes
                </th>
                <th scope="col" className="px-4 py-2 text-right whitespace-nowrap">
                  Amount ({invoice.currency})
                </th>
              </tr>
            </thead>
            <tbody>
              {usage.length === 0 ? (
                <tr>
                  <td colSpan={5} className="px-4 py-3 text-slate-600">
                    No calls in this period.
                  </td>
                </tr>
              ) : null}
              {usage.map((line, i) => (
                <tr key={i} className="border-b border-slate-100" data-line-kind={line.kind}>
                  <td className="px-4 py-2 text-slate-900">
                    {line.description}
                    {line.prefix ? <span className="ml-1 text-xs text-slate-500">(prefix {line.prefix})</span> : null}
                  </td>
                  <td className="px-4 py-2 text-slate-700">{line.direction ? DIRECTION[line.direction] : ""}</td>
                  <td className="px-4 py-2 text-right tabular-nums text-slate-700">
                    {line.kind === "usage" ? formatCount(line.calls) : ""}
                  </td>
                  <td className="px-4 py-2 text-right tabular-nums text-slate-700">
                    {line.kind === "usage" ? formatMinutes(line.billedSeconds) : ""}
                  </td>
                  <td className="px-4 py-2 text-right whitespace-nowrap tabular-nums text-slate-900">
                    {money(line.amount)}
                  </td>
                </tr>
              ))}
            </tbody>
            <tfoot data-testid="invoice-totals" className="border-t border-slate-200 text-slate-900">
              <TotalRow label="Subtotal" value={money(invoice.subtotal)} />
              <TotalRow label={`Tax ${invoice.taxRate} %`} value={money(invoice.tax)} />
              <TotalRow label="Total" value={money(invoice.total)} strong />
              {invoice.kind === "invoice" ? (
                <TotalRow
                  label={invoice.billingMode === "prepaid" ? "Amount due (prepaid account)" : "Amount due"}
                  value={money(invoice.amountDue)}
                  strong
                  testId="amount-due"
                />
              ) : null}
            </tfoot>
          </table>
        </div>
        {invoice.kind === "invoice" ? (
          <p className="border-t border-slate-100 px-4 py-3 text-xs text-slate-600">
            {invoice.billingMode === "prepaid"
              ? "The calls were paid from the prepaid balance as they were made: nothing is due."
              : "Postpaid: the total is due. Payments are credited to the account's balance, not marked on the invoice."}
          </p>
        ) : null}
      </Card>

      {invoice.balance ? (
        <Card padding="none" aria-labelledby="invoice-balance-title" data-testid="invoice-balance">
          <CardTitle id="invoice-balance-title" className="px-4 pt-4">
            Balance
          </CardTitle>
          <div className="overflow-x-auto" role="region" aria-label="Balance table" tabIndex={0}>
            <table className="w-full text-sm">
              <caption className="sr-only">The account&apos;s balance over the period, in {invoice.currency}</caption>
              <thead className="sr-only">
                <tr>
                  <th scope="col">Entry</th>
                  <th scope="col">Booked</th>
                  <th scope="col">Amount</th>
                </tr>
              </thead>
              <tbody>
                <BalanceRow label="Opening balance" value={money(invoice.balance.opening)} strong />
                {ledger.map((line, i) => (
                  <BalanceRow
                    key={i}
                    label={line.description}
                    booked={line.occurredAt ? dayLabel(line.occurredAt, invoice.timeZone) : ""}
                    value={money(line.amount)}
                    indent
                  />
                ))}
                <BalanceRow label="Top-ups" value={money(invoice.balance.topups)} />
                <BalanceRow label="Adjustments" value={money(invoice.balance.adjustments)} />
                <BalanceRow label="Call debits (booked in the period)" value={money(invoice.balance.debits)} />
                <BalanceRow label="Closing balance" value={money(invoice.balance.closing)} strong />
              </tbody>
            </table>
          </div>
        </Card>
      ) : null}

      {invoice.kind === "invoice" ? (
        <Card aria-labelledby="invoice-notes-title" data-testid="invoice-notes">
          <CardTitle id="invoice-notes-title">Credit and debit notes</CardTitle>
          {invoice.notes.length === 0 ? (
            <p className="mt-2 text-sm text-slate-600">
              None: no call of this period has been re-rated or arrived late since the invoice was issued.
            </p>
          ) : (
            <ul className="mt-2 flex flex-col divide-y divide-slate-100 text-sm">
              {invoice.notes.map((note) => (
                <li key={note.id} className="flex flex-wrap items-baseline justify-between gap-2 py-2">
                  <span>
                    <Link
                      href={pathOf(PORTAL_PAGES.invoice, note.id)}
                      className="font-medium text-brand-700 hover:underline"
                    >
                      {KIND[note.kind]} {note.number}
                    </Link>
                    <span className="text-slate-600"> issued {dayLabel(note.issuedAt, invoice.timeZone)}</span>
                  </span>
                  <span className="tabular-nums text-slate-900">{money(note.total)}</span>
                </li>
              ))}
            </ul>
          )}
        </Card>
      ) : null}
    </div>
  );
}

function TotalRow({
  label,
  value,
  strong = false,
  testId,
}: {
  label: string;
  value: string;
  strong?: boolean;
  testId?: string;
}) {
  return (
    <tr className={strong ? "font-semibold" : ""} data-testid={testId}>
      <th scope="row" colSpan={4} className={`px-4 py-1.5 text-right ${strong ? "font-semibold" : "font-normal"}`}>
        {label}
      </th>
      <td className="px-4 py-1.5 text-right whitespace-nowrap tabular-nums">{value}</td>
    </tr>
  );
}

function BalanceRow({
  label,
  value,
  booked = "",
  strong = false,
  indent = false,
}: {
  label: string;
  value: string;
  booked?: string;
  strong?: boolean;
  indent?: boolean;
}) {
  return (
    <tr className={`border-b border-slate-100 last:border-0 ${strong ? "font-semibold" : ""}`}>
      <th
        scope="row"
        className={`py-1.5 pr-4 text-left ${strong ? "font-semibold" : "font-normal"} ${indent ? "pl-8 text-slate-700" : "pl-4"}`}
      >
        {label}
      </th>
      <td className="px-4 py-1.5 whitespace-nowrap text-slate-600">{booked}</td>
      <td className="px-4 py-1.5 text-right whitespace-nowrap tabular-nums">{value}</td>
    </tr>
  );
}
