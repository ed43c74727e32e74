import { z } from "zod";
import { defineOperation } from "@/lib/openapi/operation";
import { invoiceIdParamsSchema, invoicePageSchema, invoiceSchema, listInvoicesQuerySchema } from "./schemas";

/** The /v1 operations on invoices and notes (routes in app/v1/invoices; docs/contract.md §10). */

export const listInvoicesOperation = defineOperation({
  operationId: "listInvoices",
  method: "GET",
  path: "/v1/invoices",
  tag: "Invoices",
  summary: "List invoices and notes",
  description:
    "Invoices and credit/debit notes newest first (issue time, then issue order), paged with an opaque cursor like " +
    "`GET /v1/calls`: follow `nextPageUrl` until `meta.hasMore` is false. A bound key sees its group's documents; a " +
    "platform key every group's, or one group's with `account`. `calls:read` keys have this scope too.",
  scope: "invoices:read",
  query: listInvoicesQuerySchema,
  responses: { 200: { description: "A page of invoices and notes", body: invoicePageSchema } },
  errors: ["invalid_cursor"],
});

export const getInvoiceOperation = defineOperation({
  operationId: "getInvoice",
  method: "GET",
  path: "/v1/invoices/{id}",
  tag: "Invoices",
  summary: "Get one invoice or note",
  description:
    "One document with its lines, totals, the period's balance (invoices) and the notes issued for it. Another " +
    "group's document answers 404, like an unknown id.",
  scope: "invoices:read",
  params: invoiceIdParamsSchema,
  responses: { 200: { description: "The invoice or note", body: invoiceSchema } },
});

export const getInvoicePdfOperation = defineOperation({
  operationId: "getInvoicePdf",
  method: "GET",
  path: "/v1/invoices/{id}/pdf",
  tag: "Invoices",
  summary: "The document as PDF",
  description: "The invoice or note as a PDF download, rendered from the issued document (the same bytes every time).",
  scope: "invoices:read",
  params: invoiceIdParamsSchema,
  responses: { 200: { description: "PDF", body: z.string(), contentType: "application/pdf" } },
});

export const getInvoiceCallsOperation = defineOperation({
  operationId: "getInvoiceCalls",
  method: "GET",
  path: "/v1/invoices/{id}/calls.csv",
  tag: "Invoices",
  summary: "The period's calls as CSV",
  description:
    "Every call of the document's group that started in its period, as `GET /v1/calls/export` writes them (as " +
    "they are now: a call re-rated after the invoice shows its new price, which a note accounts for). The cost " +
    "columns are present only for `calls:read_cost` keys.",
  scope: "invoices:read",
  params: invoiceIdParamsSchema,
  responses: { 200: { description: "CSV with a header row", body: z.string(), contentType: "text/csv" } },
});

/** The /v1 operations on invoices and notes, in the OpenAPI document's order (gathered by lib/api/operations.ts). */
export const INVOICE_OPERATIONS = [
  listInvoicesOperation,
  getInvoiceOperation,
  getInvoicePdfOperation,
  getInvoiceCallsOperation,
] as const;
