import type { Principal } from "@/lib/auth/principal";
import { nextPageLink } from "@/lib/http/next-page-link";
import type { CallReads } from "./call-store";
import { CALL_PAGE_FILTERS, callFiltersFromQuery } from "./list-calls";
import type { CallPage, ListCallsQuery } from "./schemas";

/**
 * GET /v1/calls's body for a checked query, as JSON text (`origin`: pageOrigin's). The route answers with it and a
 * portal page's first screen is rendered from it (lib/portal/first-screen.ts), so both carry the same calls, cost
 * fields only for calls:read_cost principals, and the same cursor.
 */
export async function callPageJson(
  reads: CallReads,
  principal: Principal,
  query: ListCallsQuery,
  origin: string,
): Promise<string> {
  const listing = await reads.listCallsJson(principal, callFiltersFromQuery(query), {
    pageSize: query.pageSize,
    cursor: query.cursor || undefined,
  });
  const nextPage: CallPage["nextPageUrl"] = nextPageLink(
    origin,
    "/v1/calls",
    query,
    CALL_PAGE_FILTERS,
    listing.nextCursor,
  );
  const meta: CallPage["meta"] = { pageSize: query.pageSize, hasMore: listing.hasMore };
  // The calls arrive as JSON text (listCallsJson): the same body JSON.stringify gave.
  return `{"calls":${listing.callsJson},"nextPageUrl":${JSON.stringify(nextPage)},"meta":${JSON.stringify(meta)}}`;
}
