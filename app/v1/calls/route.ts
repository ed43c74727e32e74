import { apiRoute, jsonText } from "@/lib/api/handler";
import { publicBaseUrl } from "@/lib/config/env";
import { callReads } from "@/lib/calls/call-store";
import { CALL_PAGE_FILTERS, callFiltersFromQuery } from "@/lib/calls/list-calls";
import { listCallsOperation } from "@/lib/calls/operations";
import type { CallPage } from "@/lib/calls/schemas";
import { nextPageLink, pageOrigin } from "@/lib/http/next-page-link";

export const GET = apiRoute(listCallsOperation, async ({ readDb, principal, query, request }) => {
  const listing = await callReads(await readDb()).listCallsJson(principal, callFiltersFromQuery(query), {
    pageSize: query.pageSize,
    cursor: query.cursor || undefined,
  });
  const origin = pageOrigin(request, publicBaseUrl());
  const nextPage: CallPage["nextPageUrl"] = nextPageLink(
    origin,
    "/v1/calls",
    query,
    CALL_PAGE_FILTERS,
    listing.nextCursor,
  );
  const meta: CallPage["meta"] = { pageSize: query.pageSize, hasMore: listing.hasMore };
  // A CallPage whose calls arrive as JSON text (listCallsJson): the same body JSON.stringify gave.
  return jsonText(
    `{"calls":${listing.callsJson},"nextPageUrl":${JSON.stringify(nextPage)},"meta":${JSON.stringify(meta)}}`,
  );
});
