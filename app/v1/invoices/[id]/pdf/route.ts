import { apiRoute } from "@/lib/api/handler";
import { fileResponse, invoicePdf } from "@/lib/invoices/invoice-files";
import { getInvoicePdfOperation } from "@/lib/invoices/operations";

export const GET = apiRoute(getInvoicePdfOperation, async ({ db, principal, params }) =>
  fileResponse(await invoicePdf(db, principal, params.id)),
);
