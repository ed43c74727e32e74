import { apiRoute } from "@/lib/api/handler";
import { publicBaseUrl } from "@/lib/config/env";
import { callFiltersFromQuery, listCalls, nextPageUrl, pageOrigin } from "@/lib/calls/list-calls";
import { listCallsQuerySchema, type CallPage } from "@/lib/calls/schemas";

export const GET = apiRoute({ scope: "calls:read", query: listCallsQuerySchema }, async ({ readDb, principal, query, request }) => {
  const listing = await listCalls(await readDb(), principal, callFiltersFromQuery(query), { pageSize: query.pageSize, cursor: query.cursor || undefined });
  const origin = pageOrigin(request, publicBaseUrl());
  const body: CallPage = {
    calls: listing.page,
    nextPageUrl: listing.nextCursor ? nextPageUrl(origin, query, listing.nextCursor) : null,
    meta: { pageSize: query.pageSize, hasMore: listing.hasMore },
  };
  return body;
});
