import { operatorContact, portalBaseUrl } from "@/lib/config/env";
import { billingContacts } from "@/lib/billing/billing-contacts";
import type { Executor } from "@/lib/db/client";
import { enqueueMail } from "@/lib/mail/outbox";
import { formatMinorUnits } from "@/lib/money/currency-decimals";

type DocumentKind = "invoice" | "credit_note" | "debit_note";

/** What the mail says of an issued document (a NewDocument has it). */
export interface MailedDocument {
  kind: DocumentKind;
  billingGroupId: string;
  customerName: string;
  currency: string;
  totalMicros: bigint;
  /** Who issued it: a reseller's documents are mailed in its name (issuerGroupId set); the operator's as before. */
  issuerName: string;
  issuerGroupId?: string | null;
}

// In the currency's minor unit (docs/contract.md §10; documents issued before are rounded here).
const formatAmount = formatMinorUnits;

const TITLE: Record<DocumentKind, string> = {
  invoice: "Invoice",
  credit_note: "Credit note",
  debit_note: "Debit note",
};

/** The outbox reference of a document's PDF (resolved by invoiceAttachments when the mail is sent). */
export const ATTACHMENT_PREFIX = "invoice-pdf:";

/**
 * Queues the mail of documents just issued, in the issuing transaction: one message per owner and billing member of
 * the group's organization, keyed by document and person, so the mail goes out once after commit (lib/mail/outbox.ts)
 * and never for a document a re-run did not issue.
 */
export async function enqueueDocumentMails(
  tx: Executor,
  issued: readonly { id: string; number: string; doc: MailedDocument }[],
): Promise<void> {
  if (issued.length === 0) return;
  const recipients = await billingContacts(
    tx,
    issued.map((i) => i.doc.billingGroupId),
  );
  if (recipients.length === 0) return;
  const base = portalBaseUrl();
  // How to pay or ask, when the operator set a contact (the PDF says it too).
  const contact = operatorContact();
  const contactLine = contact ? `\nQuestions or paying: contact ${contact}\n` : "";
  await enqueueMail(
    tx,
    issued.flatMap(({ id, number, doc }) =>
      recipients
        .filter((r) => r.billingGroupId === doc.billingGroupId)
        .map((r) => ({
          key: `invoice:${id}:${r.userId}`,
          to: r.email,
          subject: `${TITLE[doc.kind]} ${number}: ${formatAmount(doc.totalMicros, doc.currency)} ${doc.currency}`,
          // A reseller's customer hears from the reseller (the From's name; the address is MAIL_FROM's).
          fromName: doc.issuerGroupId ? doc.issuerName : null,
          text:
            `${TITLE[doc.kind]} ${number} for ${doc.customerName} has been issued` +
            `${doc.issuerGroupId ? ` by ${doc.issuerName}` : ""}, total ` +
            `${formatAmount(doc.totalMicros, doc.currency)} ${doc.currency}.\n\n` +
            // The document's page in the portal (lib/portal/pages.ts "invoice"); mails sent before link
            // /invoices?document=<id>, which the list redirects here.
            `In the portal: ${base}/invoices/${encodeURIComponent(id)}\n` +
            `The PDF: ${base}/v1/invoices/${encodeURIComponent(id)}/pdf (also attached)\n` +
            contactLine,
          attachment: `${ATTACHMENT_PREFIX}${id}`,
        })),
    ),
  );
}
