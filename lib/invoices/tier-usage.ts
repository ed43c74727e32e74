import { RESOLD_LINE_PREFIX } from "@/lib/calls/period-tier-usage";
import type { GroupForInvoicing } from "./group-lock";

// Invoices by tier (docs/contract.md "Reseller tiers", "Invoices by tier"): an account's invoice is issued by whoever
// it buys from (its parent; the operator for a root account) and bills what it owes that parent: its own calls' prices
// and, when it resells, its tier charges (call_tier_charges) for its subtree's calls of the period.

/** Whether a document line is one of tier charges (its description says so). */
export const isResoldLine = (description: string) => description.startsWith(RESOLD_LINE_PREFIX);

/** Who issues a group's documents: its parent account (name, its own number series), else the operator. */
export function issuerOf(
  group: Pick<GroupForInvoicing, "parentId" | "parentName">,
  operator: { name: string; address: string },
): DocumentIssuer {
  return group.parentId === null
    ? { ...operator, groupId: null }
    : { name: group.parentName ?? group.parentId, address: "", groupId: group.parentId };
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
