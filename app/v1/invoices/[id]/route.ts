import { apiRoute } from "@/lib/api/handler";
import { getInvoiceOperation } from "@/lib/invoices/operations";
import { getInvoice } from "@/lib/invoices/read-invoices";
import { serializeInvoice } from "@/lib/invoices/serialize-invoice";

export const GET = apiRoute(getInvoiceOperation, async ({ db, principal, params }) =>
  serializeInvoice(await getInvoice(db, principal, params.id)),
);
