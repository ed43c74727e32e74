import type { Metadata } from "next";
import Link from "next/link";
import { notFound } from "next/navigation";
import { InvoiceDetail } from "@/components/invoices/invoice-detail";
import { isPlatform, reachOf } from "@/lib/auth/reach";
import { getDb } from "@/lib/db/client";
import { portalInvoice } from "@/lib/portal/invoices";
import { requirePortalPage, type PageSearchParams } from "@/lib/portal/page-guard";
import { PORTAL_PAGES } from "@/lib/portal/pages";

export const metadata: Metadata = { title: "Invoice" };

/** One invoice or note: reached from the Invoices list and from the invoice mail; another account's is a 404. */
export default async function InvoicePage({
  params,
  searchParams,
}: {
  params: Promise<{ id: string }>;
  searchParams: Promise<PageSearchParams>;
}) {
  const { id } = await params;
  const { principal } = await requirePortalPage(PORTAL_PAGES.invoice, searchParams, id);
  const invoice = await portalInvoice(await getDb(), principal, id);
  if (!invoice) notFound();
  return (
    <div className="mx-auto flex max-w-5xl flex-col gap-4">
      <nav aria-label="Breadcrumb" className="text-sm">
        <Link href={PORTAL_PAGES.invoices.path} className="font-medium text-brand-700 hover:text-brand-600">
          ← Invoices
        </Link>
      </nav>
      <InvoiceDetail invoice={invoice} showAccountId={isPlatform(reachOf(principal))} />
    </div>
  );
}
