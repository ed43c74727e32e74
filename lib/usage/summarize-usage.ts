import type { Principal } from "@/lib/auth/principal";
import type { CallFilters } from "@/lib/calls/list-calls";
import type { Executor } from "@/lib/db/client";
import type { UsageGroupBy, UsageReport } from "./schemas";

/** The filters of GET /v1/calls plus the billing group a platform key may narrow to. */
export interface UsageFilters extends CallFilters {
  /** Billing group id; for a bound key only its own group is visible (another answers 404 not_found). */
  account?: string;
}

export interface UsageOptions {
  groupBy: UsageGroupBy;
  /** IANA zone of day/month buckets; validated by the query schema. Default "UTC". */
  timeZone?: string;
}

/**
 * Usage of the calls the principal may see, matching `filters`, grouped by `options.groupBy`.
 * Answered from the usage_rollup table (maintained by triggers in the ingest transaction); see below.
 * Throws ApiError insufficient_scope for groupBy=supplier without calls:read_cost, not_found for an
 * account the principal may not see.
 */
export async function summarizeUsage(
  db: Executor,
  principal: Principal,
  filters: UsageFilters,
  options: UsageOptions,
): Promise<UsageReport> {
  void db;
  void principal;
  void filters;
  void options;
  throw new Error("not implemented yet");
}
