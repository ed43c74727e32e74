import { canReadCost, type Principal } from "./principal";
import { isPlatform, ownGroup, reachOf } from "./reach";

/**
 * What a caller sees of a call's cost (docs/contract.md §21, "Cost view by tier"), decided here for every serialiser:
 * - `none`: no cost field at all (no calls:read_cost);
 * - `operator`: the platform (a platform key, staff): the carrier's buy cost and rate, the supplier, the margin over
 *   them;
 * - `tier`: a caller bound to account `tier` with calls:read_cost (a reseller): on a call of a descendant, what
 *   `tier` pays its parent for it (buyCost, call_tier_charges) and its margin (what its child on the path pays it,
 *   minus that); on its own calls, null (it is the customer there). Never a supplier or the operator's cost.
 */
export type CostView = { kind: "none" } | { kind: "operator" } | { kind: "tier"; tier: string };

const NONE: CostView = { kind: "none" };
const OPERATOR: CostView = { kind: "operator" };

export function costViewOf(principal: Pick<Principal, "scopes" | "billingGroupId" | "reachGroupIds">): CostView {
  if (!canReadCost(principal)) return NONE;
  const reach = reachOf(principal);
  return isPlatform(reach) ? OPERATOR : { kind: "tier", tier: ownGroup(reach)! };
}

/**
 * Whether the caller sees the operator's side: suppliers (ids, names, filters, breakdowns) and the carrier's buy
 * rates and costs. The platform's cost view only.
 */
export function canReadOperatorCost(
  principal: Pick<Principal, "scopes" | "billingGroupId" | "reachGroupIds">,
): boolean {
  return costViewOf(principal).kind === "operator";
}

/**
 * Whose buy cost and margin a usage report (GET /v1/usage, the portal's reports) sums: the operator's (the platform),
 * a tier's own (a caller bound to an account with descendants: a reseller), or none (no calls:read_cost, or a customer
 * without children, which buys from its parent and sells to nobody: no cost of its own to show).
 */
export function usageCostViewOf(principal: Pick<Principal, "scopes" | "billingGroupId" | "reachGroupIds">): CostView {
  const view = costViewOf(principal);
  if (view.kind !== "tier") return view;
  const reach = reachOf(principal);
  return !isPlatform(reach) && reach.groupIds.length > 1 ? view : NONE;
}
