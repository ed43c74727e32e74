import type { PaymentStanding } from "@/lib/invoices/payment-standing";
import type { InvoiceSummary } from "@/lib/invoices/schemas";

// What the list and an invoice's page both say of a document: its kind, period, issue day and payment standing.

export const KIND = { invoice: "Invoice", credit_note: "Credit note", debit_note: "Debit note" } as const;

/** "October 2025": the period's month in its zone (a period is one calendar month there, docs/contract.md §10). */
export function periodLabel(doc: Pick<InvoiceSummary, "periodStart" | "timeZone">): string {
  return new Intl.DateTimeFormat("en-GB", { timeZone: doc.timeZone, month: "long", year: "numeric" }).format(
    new Date(doc.periodStart),
  );
}

/** "1 Oct 2025 – 31 Oct 2025": the period's first and last local day in its zone, as the PDF says it. */
export function periodDays(doc: Pick<InvoiceSummary, "periodStart" | "periodEnd" | "timeZone">): string {
  const day = new Intl.DateTimeFormat("en-GB", { timeZone: doc.timeZone, dateStyle: "medium" });
  return `${day.format(new Date(doc.periodStart))} – ${day.format(new Date(new Date(doc.periodEnd).getTime() - 1))}`;
}

/** "27 Nov 2026": a day of the document's zone. */
export function dayLabel(iso: string, timeZone: string): string {
  return new Intl.DateTimeFormat("en-GB", { timeZone, dateStyle: "medium" }).format(new Date(iso));
}

const STANDING: Record<PaymentStanding, { label: string; title: string; className: string }> = {
  prepaid: {
    label: "Prepaid",
    title: "Paid from the prepaid balance as the calls were made: nothing is due",
    className: "bg-emerald-50 text-emerald-800",
  },
  due: {
    label: "Due",
    title: "Postpaid: the total is due (payments are credited to the balance, not marked on the invoice)",
    className: "bg-amber-100 text-amber-900",
  },
  credit: { label: "Credit", title: "Postpaid: a credit to the account", className: "bg-sky-50 text-sky-800" },
  nothing_due: { label: "Nothing due", title: "Postpaid: the total is 0", className: "bg-slate-100 text-slate-700" },
};

/** Prepaid, Due, Credit or Nothing due, as a small badge (lib/invoices/payment-standing.ts decides which). */
export function StandingBadge({ standing }: { standing: PaymentStanding }) {
  const s = STANDING[standing];
  return (
    <span
      className={`inline-block rounded-full px-2 py-0.5 text-xs font-medium whitespace-nowrap ${s.className}`}
      title={s.title}
      data-standing={standing}
    >
      {s.label}
    </span>
  );
}
