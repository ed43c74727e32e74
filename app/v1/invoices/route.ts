import { apiRoute } from "@/lib/api/handler";
import { pageOrigin } from "@/lib/http/next-page-link";
import { publicBaseUrl } from "@/lib/config/env";
import { invoicePage } from "@/lib/invoices/invoice-page";
import { listInvoicesOperation } from "@/lib/invoices/operations";

export const GET = apiRoute(listInvoicesOperation, async ({ db, principal, query, request }) =>
  invoicePage(db, principal, query, pageOrigin(request, publicBaseUrl())),
);
