import type { Principal } from "@/lib/auth/principal";
import type { Executor } from "@/lib/db/client";
import { exportCallsCsv } from "./export-csv";
import { getCall } from "./get-call";
import {
  listCalls,
  listCallsJson,
  type CallFilters,
  type CallListing,
  type CallListingJson,
  type PageRequest,
} from "./list-calls";
import { readPeriodUsage, readPeriodsUsage, type GroupPeriod, type UsageLine } from "./period-usage";
import type { CallDetail, CallDetailWithCost } from "./schemas";
import { spendPerDay, type SpendOptions, type SpendSeries } from "./spend-per-day";
import { readUsageSums, type ElsewhereSums, type UsageSums, type UsageSumsRequest } from "./usage-sums";

/** The ranges of start_time a usage report reads from calls (not a rollup): what another store adds to usageSums. */
export { usageCallRanges } from "./usage-sums";

/**
 * The questions asked of stored calls, whichever store answers them. Every reader of calls outside lib/calls asks
 * here (held by lib/calls/call-reads.test.ts), never with its own SQL over `calls`, so a second store (the history
 * tier of archived calls, docs/contract.md "Archiving calls") can answer the same questions without its callers
 * changing. Writers (ingest's insert, re-rating's update) stay with their concepts.
 */
export interface CallReads {
  /** GET /v1/calls: one keyset page, each call as the database's JSON text (listCallsJson). */
  listCallsJson(principal: Principal, filters: CallFilters, page: PageRequest): Promise<CallListingJson>;
  /** GET /v1/calls/{id} and the portal's call page: 404 for unknown and other groups' ids. */
  getCall(principal: Principal, id: string): Promise<CallDetail | CallDetailWithCost>;
  /** One page of serialised calls on the listing's keyset: what the CSV exports (streamed, background) page through. */
  exportPage(principal: Principal, filters: CallFilters, page: PageRequest): Promise<CallListing>;
  /** Every call matching the filters as CSV, streamed page by page (exportPage). */
  exportCsv(principal: Principal, filters: CallFilters, pageSize?: number): Promise<ReadableStream<Uint8Array>>;
  /** A period's usage per direction and destination, per group: the lines an invoice or a note is issued from. */
  periodsUsage(periods: readonly GroupPeriod[]): Promise<Map<string, UsageLine[]>>;
  /** periodsUsage of one group's period [start, end). */
  periodUsage(groupId: string, start: Date, end: Date): Promise<UsageLine[]>;
  /**
   * GET /v1/usage's sums: the calls matching the filters, per groupBy key and currency. `elsewhere`: another store's
   * calls of the report's call ranges (usageCallRanges), already summed, added to the hot calls' (the history tier).
   */
  usageSums(request: UsageSumsRequest, elsewhere?: readonly ElsewhereSums[]): Promise<UsageSums[]>;
  /** Sell-side spend per day of a zone (the account's) over the last days, and this month's (the portal's dashboard). */
  spendPerDay(principal: Pick<Principal, "billingGroupId">, options?: SpendOptions): Promise<SpendSeries[]>;
}

/**
 * The hot store: the `calls` table (and its rollups) of this database, PostgreSQL or PGlite alike. Each question runs
 * the same statement as before the port existed, on `db` (a transaction, the read replica or the pool).
 */
export function callReads(db: Executor): CallReads {
  return {
    listCallsJson: (principal, filters, page) => listCallsJson(db, principal, filters, page),
    getCall: (principal, id) => getCall(db, principal, id),
    exportPage: (principal, filters, page) => listCalls(db, principal, filters, page),
    exportCsv: (principal, filters, pageSize) => exportCallsCsv(db, principal, filters, pageSize),
    periodsUsage: (periods) => readPeriodsUsage(db, periods),
    periodUsage: (groupId, start, end) => readPeriodUsage(db, groupId, start, end),
    usageSums: (request, elsewhere) => readUsageSums(db, request, elsewhere),
    spendPerDay: (principal, options) => spendPerDay(db, principal, options),
  };
}
