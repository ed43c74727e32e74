import { operatorContact } from "@/lib/config/env";
import type { Executor } from "@/lib/db/client";
import type { MailMessage } from "@/lib/mail/send-mail";
import { ATTACHMENT_PREFIX } from "./invoice-mail";
import { getInvoice } from "./read-invoices";
import { renderInvoicePdf } from "./render-pdf";

/** The mail worker's attachment resolver: a document's PDF, rendered when its mail is sent. */
export async function invoiceAttachments(db: Executor, reference: string): Promise<MailMessage["attachments"]> {
  if (!reference.startsWith(ATTACHMENT_PREFIX)) return undefined;
  const id = reference.slice(ATTACHMENT_PREFIX.length);
  const invoice = await getInvoice(
    db,
    { keyId: "mail-outbox", scopes: new Set(), billingGroupId: null, rateCardVersion: null, via: "api_key" },
    id,
  );
  return [
    {
      filename: `${invoice.number}.pdf`,
      content: await renderInvoicePdf(invoice, operatorContact()),
      contentType: "application/pdf",
    },
  ];
}
