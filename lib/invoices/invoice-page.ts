import type { Principal } from "@/lib/auth/principal";
import type { Executor } from "@/lib/db/client";
import { nextPageLink } from "@/lib/http/next-page-link";
import { listInvoices } from "./read-invoices";
import type { InvoicePage, ListInvoicesQuery } from "./schemas";
import { serializeInvoiceSummary } from "./serialize-invoice";

/** GET /v1/invoices: a page, with the absolute URL of the next one (`origin`: pageOrigin's). */
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
  return {
    invoices: listing.documents.map(serializeInvoiceSummary),
    nextPageUrl: nextPageLink(origin, "/v1/invoices", query, ["account"], listing.nextCursor),
    meta: { pageSize: query.pageSize, hasMore: listing.hasMore },
  };
}
