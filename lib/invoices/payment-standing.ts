import type { StoredDocument } from "./read-invoices";
import { amountDueMicros } from "./serialize-invoice";

/**
 * What a document asks of the customer, as the portal labels it (docs/contract.md §10 "Prepaid and postpaid"):
 * `prepaid` the usage was paid from the balance as it happened, nothing is due; `due` a postpaid document's total is
 * owed; `credit` a postpaid credit note owes the customer; `nothing_due` a postpaid document of 0. Whether a postpaid
 * invoice has since been paid is not recorded (payments credit the balance, not a document), so it is never "paid".
 */
export type PaymentStanding = "prepaid" | "due" | "credit" | "nothing_due";

export function paymentStanding(d: Pick<StoredDocument, "billingMode" | "totalMicros">): PaymentStanding {
  if (d.billingMode === "prepaid") return "prepaid";
  const due = amountDueMicros(d);
  return due > 0n ? "due" : due < 0n ? "credit" : "nothing_due";
}
