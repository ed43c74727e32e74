import type { Principal } from "@/lib/auth/principal";
import type { Executor } from "@/lib/db/client";
import { ApiError } from "@/lib/errors/api-error";
import { paymentStanding, type PaymentStanding } from "@/lib/invoices/payment-standing";
import { getInvoice, listInvoices } from "@/lib/invoices/read-invoices";
import type { Invoice, InvoiceSummary } from "@/lib/invoices/schemas";
import { serializeInvoice, serializeInvoiceSummary } from "@/lib/invoices/serialize-invoice";
import { pathOf, PORTAL_PAGES } from "./pages";

/** A row of the portal's Invoices list: the /v1 summary, the name it bills and what it asks of the customer. */
export interface PortalInvoiceRow extends InvoiceSummary {
  customerName: string;
  billingMode: "prepaid" | "postpaid";
  standing: PaymentStanding;
}

/** The portal's Invoices page: the newest documents the session may see (an account's, with `account`). */
export async function portalInvoices(
  db: Executor,
  principal: Principal,
  account: string | undefined,
  limit = 120,
): Promise<PortalInvoiceRow[]> {
  const valid = account && /^[\w-]{1,64}$/.test(account) ? account : undefined;
  const listing = await listInvoices(db, principal, { pageSize: limit, account: valid });
  return listing.documents.map((d) => ({
    ...serializeInvoiceSummary(d),
    customerName: d.customerName,
    billingMode: d.billingMode,
    standing: paymentStanding(d),
  }));
}

/** One document's page: GET /v1/invoices/{id}'s answer, the number of the invoice a note corrects, its standing. */
export interface PortalInvoice extends Invoice {
  invoiceNumber: string | null;
  standing: PaymentStanding;
}

/**
 * The document the session may see, or null for one it may not (another account's) or that does not exist: the
 * page answers both with the same 404, like /v1 (reach is getInvoice's).
 */
export async function portalInvoice(db: Executor, principal: Principal, id: string): Promise<PortalInvoice | null> {
  try {
    const stored = await getInvoice(db, principal, id);
    return { ...serializeInvoice(stored), invoiceNumber: stored.invoiceNumber, standing: paymentStanding(stored) };
  } catch (e) {
    if (e instanceof ApiError && e.code === "not_found") return null;
    throw e;
  }
}

/**
 * Where the invoice mail's old link (`/invoices?document=inv_...`, in mails already sent) now leads: the document's
 * own page; null when the query names no document id (the list is shown).
 */
export function documentRedirect(document: string | string[] | undefined): string | null {
  const id = Array.isArray(document) ? document[0] : document;
  return id && /^inv_[0-9a-z]{1,64}$/.test(id) ? pathOf(PORTAL_PAGES.invoice, id) : null;
}
