import type { Principal } from "@/lib/auth/principal";
import { callReadsWithHistory } from "@/lib/history/history-call-reads";
import { operatorContact } from "@/lib/config/env";
import type { Executor } from "@/lib/db/client";
import { getInvoice } from "./read-invoices";
import { renderInvoicePdf } from "./render-pdf";

export interface InvoiceFile {
  filename: string;
  contentType: string;
  body: Uint8Array | ReadableStream<Uint8Array>;
}

/** GET /v1/invoices/{id}/pdf: the document's PDF (404 like GET /v1/invoices/{id}). */
export async function invoicePdf(db: Executor, principal: Principal, id: string): Promise<InvoiceFile> {
  const invoice = await getInvoice(db, principal, id);
  return {
    filename: `${invoice.number}.pdf`,
    contentType: "application/pdf",
    body: await renderInvoicePdf(invoice, operatorContact()),
  };
}

/** GET /v1/invoices/{id}/calls.csv: the calls of the document's group that started in its period, as the export. */
export async function invoiceCallsCsv(db: Executor, principal: Principal, id: string): Promise<InvoiceFile> {
  const invoice = await getInvoice(db, principal, id);
  const body = await callReadsWithHistory(db).exportCsv(principal, {
    billingGroupId: invoice.billingGroupId,
    startTimeGte: invoice.periodStart,
    startTimeLte: new Date(invoice.periodEnd.getTime() - 1),
  });
  return { filename: `${invoice.number}-calls.csv`, contentType: "text/csv; charset=utf-8", body };
}

/** The download's answer: no caching (a key's document), no sniffing. */
export function fileResponse(file: InvoiceFile): Response {
  return new Response(file.body as BodyInit, {
    headers: {
      "content-type": file.contentType,
      "content-disposition": `attachment; filename="${file.filename}"`,
      "cache-control": "private, no-store",
      "x-content-type-options": "nosniff",
    },
  });
}
