import type { Principal } from "@/lib/auth/principal";
import type { Executor } from "@/lib/db/client";
import { listInvoices } from "@/lib/invoices/read-invoices";
import type { InvoiceSummary } from "@/lib/invoices/schemas";
import { serializeInvoiceSummary } from "@/lib/invoices/serialize-invoice";

/** The portal's Invoices page: the newest documents the session may see (an account's, with `account`). */
export async function portalInvoices(
  db: Executor,
  principal: Principal,
  account: string | undefined,
  limit = 120,
): Promise<InvoiceSummary[]> {
  const valid = account && /^[\w-]{1,64}$/.test(account) ? account : undefined;
  const listing = await listInvoices(db, principal, { pageSize: limit, account: valid });
  return listing.documents.map(serializeInvoiceSummary);
}
