import { z } from "zod";
import { idSchema } from "@/lib/ids/ids";
import { pageEnvelope, pageSizeParam } from "@/lib/http/query-params";

/**
 * The Invoice resource of /v1 (docs/contract.md §10): invoices and the credit and debit notes that correct them.
 * serialize-invoice.ts is the only producer. Amounts are numbers of at most 6 decimals, like every amount of /v1.
 */
const money = (description: string) => z.number().describe(`${description} (at most 6 decimals)`);

export const invoiceSummarySchema = z
  .object({
    id: z.string().describe("Identifier, used in GET /v1/invoices/{id}"),
    kind: z.enum(["invoice", "credit_note", "debit_note"]),
    number: z.string().describe("Gapless per series: INV-000001, CN-000001, DN-000001"),
    billingGroupId: z.string(),
    invoiceId: z.string().nullable().describe("The invoice a credit or debit note corrects; null on an invoice"),
    periodStart: z.string().describe("Start of the period (local midnight of the 1st in timeZone), ISO 8601 UTC"),
    periodEnd: z.string().describe("End of the period, exclusive, ISO 8601 UTC"),
    timeZone: z.string().describe("IANA zone whose calendar month the period is"),
    currency: z.string().describe("ISO 4217 currency code"),
    subtotal: money("Sum of the usage lines: the prices of the period's calls (a note: the difference)"),
    tax: money("Tax on the subtotal, rounded half-up to the currency's decimals"),
    total: money("subtotal + tax"),
    issuedAt: z.string().describe("ISO 8601 UTC"),
  })
  .meta({ id: "InvoiceSummary", description: "An invoice or note, as listed" });

export const invoiceLineSchema = z.object({
  kind: z
    .enum(["usage", "rounding", "topup", "adjustment"])
    .describe(
      "usage (per direction and destination name) and rounding lines make the subtotal, in the currency's minor unit; " +
        "topup and adjustment lines are the balance's",
    ),
  direction: z.enum(["inbound", "outbound"]).nullable(),
  prefix: z
    .string()
    .nullable()
    .describe("The matched rate prefix when one makes the line; null for several, unrated calls and other lines"),
  description: z.string(),
  calls: z.number().int(),
  billedSeconds: z.number().int(),
  amount: money("Amount"),
  occurredAt: z.string().nullable().describe("When a top-up or adjustment was booked, ISO 8601 UTC"),
});

export const invoiceSchema = invoiceSummarySchema
  .extend({
    billingMode: z.enum(["prepaid", "postpaid"]),
    taxRate: z.string().describe('Percentage, exact decimal (e.g. "8.875")'),
    customerName: z.string(),
    issuer: z.object({ name: z.string(), address: z.string().describe("Lines separated by \\n") }),
    amountDue: money("postpaid: the total; prepaid: 0 (the usage was paid from the balance)"),
    balance: z
      .object({
        opening: money("Balance at the period's start"),
        topups: money("Top-ups (and an opening balance) booked in the period"),
        adjustments: money("Adjustments booked in the period, re-ratings included"),
        debits: money("Call debits booked in the period (negative)"),
        closing: money("opening + topups + adjustments + debits"),
      })
      .nullable()
      .describe("The period's balance from the ledger; null on notes"),
    lines: z.array(invoiceLineSchema),
    notes: z
      .array(invoiceSummarySchema.pick({ id: true, kind: true, number: true, total: true, issuedAt: true }))
      .describe("Credit and debit notes issued for this invoice (empty on a note)"),
    pdfUrl: z.string().describe("Path of the PDF document"),
    callsCsvUrl: z.string().describe("Path of the period's calls as CSV"),
  })
  .meta({ id: "Invoice", description: "An invoice or note with its lines" });

export const invoicePageSchema = z
  .object({
    invoices: z.array(invoiceSummarySchema),
    ...pageEnvelope,
  })
  .meta({ id: "InvoicePage", description: "One page of invoices and notes, newest first" });

export const MAX_INVOICE_PAGE_SIZE = 200;
export const DEFAULT_INVOICE_PAGE_SIZE = 50;

export const listInvoicesQuerySchema = z.object({
  pageSize: pageSizeParam({ max: MAX_INVOICE_PAGE_SIZE, fallback: DEFAULT_INVOICE_PAGE_SIZE, items: "Documents" }),
  cursor: z.string().optional().describe("Opaque cursor taken from nextPageUrl; pass it unmodified"),
  account: z
    .string()
    .max(64, "must be at most 64 characters")
    .regex(/^[\w-]*$/, "must be a billing group id")
    .optional()
    .describe("Documents of this billing group only (platform keys see every group's)"),
});

export const invoiceIdParamsSchema = z.object({
  id: idSchema("inv", "Invoice or note id, from the `id` field"),
});

export type InvoiceSummary = z.infer<typeof invoiceSummarySchema>;
export type Invoice = z.infer<typeof invoiceSchema>;
export type InvoiceLine = z.infer<typeof invoiceLineSchema>;
export type InvoicePage = z.infer<typeof invoicePageSchema>;
export type ListInvoicesQuery = z.infer<typeof listInvoicesQuerySchema>;
