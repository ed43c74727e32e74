import type { Principal } from "@/lib/auth/principal";
import type { Executor } from "@/lib/db/client";
import { listInvoices } from "./read-invoices";
import type { InvoicePage, ListInvoicesQuery } from "./schemas";
import { serializeInvoiceSummary } from "./serialize-invoice";

/** GET /v1/invoices: a page, with the absolute URL of the next one (`origin`: as GET /v1/calls decides it). */
export async function invoicePage(
  db: Executor,
  principal: Principal,
  query: ListInvoicesQuery,
  origin: string,
): Promise<InvoicePage> {
  const listing = await listInvoices(db, principal, {
    pageSize: query.pageSize,
    cursor: query.cursor || undefined,
    account: query.account || undefined,
  });
  let nextPageUrl: string | null = null;
  if (listing.nextCursor) {
    const url = new URL("/v1/invoices", origin);
    url.searchParams.set("pageSize", String(query.pageSize));
    if (query.account) url.searchParams.set("account", query.account);
    url.searchParams.set("cursor", listing.nextCursor);
    nextPageUrl = url.toString();
  }
  return {
    invoices: listing.documents.map(serializeInvoiceSummary),
    nextPageUrl,
    meta: { pageSize: query.pageSize, hasMore: listing.hasMore },
  };
}
