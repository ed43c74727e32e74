// The portal's client reads that a page's server render answers ahead (lib/portal/first-screen.ts): each one's
// TanStack Query key and its /v1 request, declared once, so the server fills in exactly the entry the browser would
// ask for. Client-safe: pure data.
import { callFiltersToApiQuery, rangeProblem, type CallFilters } from "./call-filters";

/** Query keys and the answers a page's server render puts under them (components/api/answered-queries.ts); null: the browser asks. */
export type QueryAnswers = (readonly [key: readonly unknown[], answer: unknown])[];

/** The call log's first page is small so rows show at once (the pages after it are large: use-call-pages.ts). */
export const FIRST_CALL_PAGE_SIZE = 50;
/** Calls on the dashboard's Latest calls card. */
export const LATEST_CALLS = 8;

/** The call log's pages of one /v1/calls filter query (useCallPages). */
export const callPagesKey = (apiQueryText: string) => ["calls", apiQueryText] as const;
/** The request of the call log's first page: its infinite query's first page param. */
export const firstCallPagePath = (apiQueryText: string) =>
  `/v1/calls?${apiQueryText ? `${apiQueryText}&` : ""}pageSize=${FIRST_CALL_PAGE_SIZE}`;

/** The dashboard's Latest calls, of the chosen account for a platform session. */
export const latestCallsKey = (account: string | undefined) => ["latest-calls", account] as const;
export const latestCallsPath = (account: string | undefined) =>
  `/v1/calls?pageSize=${LATEST_CALLS}${account ? `&billingGroupId=${encodeURIComponent(account)}` : ""}`;

/** The session's own balance (GET /v1/balances), and a platform session's chosen account (GET /v1/accounts/{id}). */
export const balanceKey = ["balance"] as const;
export const accountKey = (id: string | null) => ["account", id] as const;

/**
 * The call log's /v1/calls filter query as the server render knows it, or null when it cannot: days are the
 * viewer's (time-zone.tsx keeps the zone in the browser), and a range the API would refuse is not asked for.
 */
export function serverCallLogQuery(filters: CallFilters): string | null {
  if (filters.from || filters.until || rangeProblem(filters)) return null;
  return callFiltersToApiQuery(filters, "utc").toString();
}
