import { canReadOperatorCost, usageCostViewOf } from "@/lib/auth/cost-view";
import { canReadCost, type Principal } from "@/lib/auth/principal";
import { reachOf, resolveListing } from "@/lib/auth/reach";
import { ApiError } from "@/lib/errors/api-error";
import type { CallReads } from "@/lib/calls/call-store";
import { assertSupplierFilterAllowed, callFiltersFromQuery, type CallFilters } from "@/lib/calls/list-calls";
import { DEFAULT_PAGE_SIZE } from "@/lib/calls/schemas";
import type { Executor } from "@/lib/db/client";
import { isDatabaseTimeZone } from "@/lib/db/time-zones";
import { callReadsWithHistory } from "@/lib/history/history-call-reads";
import type { UsageGroupBy, UsageQuery, UsageReport } from "./schemas";
import { serializeUsage } from "./serialize-usage";

// GET /v1/usage: who may ask what, the report's scope and its JSON. The sums are read through lib/calls
// (CallReads.usageSums, lib/calls/usage-sums.ts: the rollups kept by the triggers of lib/usage/triggers.ts, and calls).

/** The filters of GET /v1/calls; `account` is another name for `billingGroupId`. */
export interface UsageFilters extends CallFilters {
  /** Billing group id: narrows a platform key; a bound key asking for another group gets an empty report. */
  account?: string;
}

/** The parsed query's filters, normalised by the calls listing's own function (paging fields are not read). */
export function usageFiltersFromQuery(query: UsageQuery): UsageFilters {
  const filters = callFiltersFromQuery({ ...query, pageSize: DEFAULT_PAGE_SIZE });
  return { ...filters, account: query.account || filters.billingGroupId };
}

export interface UsageOptions {
  groupBy: UsageGroupBy;
  /** IANA zone of day/month buckets; validated by the query schema. Default "UTC". */
  timeZone?: string;
}

/**
 * Usage of the calls the principal may see, matching `filters`, grouped by `options.groupBy`; exact. The sums are
 * the calls' store's (CallReads.usageSums: rollups for whole buckets, calls for the rest; lib/calls/usage-sums.ts),
 * with the history tier on across the boundary (its moved calls of the partial buckets too).
 * Throws ApiError insufficient_scope for groupBy=supplier or a supplierId filter without calls:read_cost.
 */
export async function summarizeUsage(
  db: Executor,
  principal: Principal,
  filters: UsageFilters,
  options: UsageOptions,
  reads: CallReads = callReadsWithHistory(db),
): Promise<UsageReport> {
  const { groupBy } = options;
  const timeZone = options.timeZone ?? "UTC";
  requireScopeForGroupBy(principal, groupBy);
  assertSupplierFilterAllowed(principal, filters);
  await requireDatabaseTimeZone(db, timeZone);
  const scope = reportScope(principal, filters);
  if (scope === "another group") return serializeUsage(groupBy, timeZone, [], principal);
  const view = usageCostViewOf(principal);
  const tier = view.kind === "tier" ? view.tier : undefined;
  const subtree = subtreeOf(principal, filters);
  const sums = await reads.usageSums({ groupBy, timeZone, filters, groups: scope.groups, tier, subtree });
  return serializeUsage(groupBy, timeZone, sums, principal);
}

function requireScopeForGroupBy(principal: Principal, groupBy: UsageGroupBy): void {
  if (groupBy === "supplier" && !canReadOperatorCost(principal)) {
    throw new ApiError(
      "insufficient_scope",
      canReadCost(principal)
        ? "groupBy=supplier is for the platform's cost view (a key not bound to a billing group)."
        : "groupBy=supplier needs the scope `calls:read_cost`.",
    );
  }
}

/** The query schema knows the zone by Intl; the report's SQL needs the database to know it (lib/db/time-zones.ts). */
async function requireDatabaseTimeZone(db: Executor, timeZone: string): Promise<void> {
  if (!(await isDatabaseTimeZone(db, timeZone))) {
    throw new ApiError("invalid_parameter", "One or more query parameters are invalid.", [
      { param: "timeZone", message: "is not a time zone the database knows (pg_timezone_names)" },
    ]);
  }
}

/** The reseller whose whole subtree the report reads (its reach, no account named): its tier rollups answer. */
function subtreeOf(principal: Principal, filters: UsageFilters): string | undefined {
  const reach = reachOf(principal);
  const named = filters.account ?? filters.billingGroupId;
  return reach.kind === "groups" && reach.groupIds.length > 1 && (named === undefined || named === null)
    ? reach.own
    : undefined;
}

/**
 * One account, as billingGroupId of GET /v1/calls: narrows a platform key; a bound key asking for another group
 * gets an empty report (no hint whether that group exists).
 */
function reportScope(
  principal: Principal,
  filters: UsageFilters,
): { groups: readonly string[] | null } | "another group" {
  const resolved = resolveListing(reachOf(principal), filters.account ?? filters.billingGroupId);
  return "outside" in resolved ? "another group" : { groups: resolved.groups };
}
