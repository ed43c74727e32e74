import { apiRoute } from "@/lib/api/handler";
import { fileResponse, invoiceCallsCsv } from "@/lib/invoices/invoice-files";
import { getInvoiceCallsOperation } from "@/lib/invoices/operations";

// Awaited: the first page of calls is read before the 200, so its failure is a problem+json answer.
export const GET = apiRoute(getInvoiceCallsOperation, async ({ db, principal, params }) =>
  fileResponse(await invoiceCallsCsv(db, principal, params.id)),
);
