import type { Metadata } from "next";
import { redirect } from "next/navigation";
import { InvoiceList } from "@/components/invoices/invoice-list";
import { getDb } from "@/lib/db/client";
import { documentRedirect, portalInvoices } from "@/lib/portal/invoices";
import { isPlatform, reachOf } from "@/lib/auth/reach";
import { requirePortalPage, type PageSearchParams } from "@/lib/portal/page-guard";
import { PORTAL_PAGES } from "@/lib/portal/pages";

export const metadata: Metadata = { title: "Invoices" };

export default async function InvoicesPage({ searchParams }: { searchParams: Promise<PageSearchParams> }) {
  const { principal, params } = await requirePortalPage(PORTAL_PAGES.invoices, searchParams);
  // Invoice mails sent before the document had its own page link here with ?document=<id>.
  const document = documentRedirect(params.document);
  if (document) redirect(document);
  const account = typeof params.account === "string" ? params.account : undefined;
  const documents = await portalInvoices(await getDb(), principal, account);
  return (
    <div className="flex flex-col gap-4">
      <div>
        <h1 className="text-2xl font-semibold tracking-tight">Invoices</h1>
        <p className="text-sm text-slate-600">
          One invoice per calendar month once it has closed, and the credit or debit notes that correct one when a call
          of its month is re-rated or arrives late. Open one for its lines, tax, amount due and balance. A prepaid
          account&apos;s calls are paid from its balance as they are made; a postpaid account&apos;s total is due
          (payments are credited to the balance, not marked on the invoice).
        </p>
      </div>
      <InvoiceList documents={documents} showAccountId={isPlatform(reachOf(principal)) && !account} />
    </div>
  );
}
