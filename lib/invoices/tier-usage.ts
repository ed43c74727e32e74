import { issuerBlockOf } from "@/lib/billing/billing-details";
import { RESOLD_LINE_PREFIX } from "@/lib/calls/period-tier-usage";
import type { GroupForInvoicing } from "./group-lock";

// Invoices by tier (docs/contract.md "Reseller tiers", "Invoices by tier"): an account's invoice is issued by whoever
// it buys from (its parent; the operator for a root account) and bills what it owes that parent: its own calls' prices
// and, when it resells, its tier charges (call_tier_charges) for its subtree's calls of the period.

/** Whether a document line is one of tier charges (its description says so). */
export const isResoldLine = (description: string) => description.startsWith(RESOLD_LINE_PREFIX);

/**
 * Who issues a group's documents: its parent account (its billing name, address and tax id, else its name; its own
 * number series), else the operator.
 */
export function issuerOf(
  group: Pick<
    GroupForInvoicing,
    "parentId" | "parentName" | "parentBillingName" | "parentBillingAddress" | "parentTaxId"
  >,
  operator: { name: string; address: string },
): DocumentIssuer {
  if (group.parentId === null) return { ...operator, groupId: null };
  const block = issuerBlockOf(
    { name: group.parentName ?? group.parentId },
    {
      name: group.parentBillingName ?? "",
      address: group.parentBillingAddress ?? "",
      taxId: group.parentTaxId ?? "",
    },
  );
  return { ...block, groupId: group.parentId };
}

export interface DocumentIssuer {
  name: string;
  address: string;
  /** The issuing account; null: the operator. */
  groupId: string | null;
}

/** A document's issuer fields (lib/invoices/insert-document.ts NewDocument) from its issuer. */
export function issuerFields(issuer: DocumentIssuer) {
  return { issuerName: issuer.name, issuerAddress: issuer.address, issuerGroupId: issuer.groupId };
}
