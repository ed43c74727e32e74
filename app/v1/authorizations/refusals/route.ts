import { apiRoute } from "@/lib/api/handler";
import { publicBaseUrl } from "@/lib/config/env";
import { nextPageLink, pageOrigin } from "@/lib/http/next-page-link";
import { listRefusals, REFUSAL_PAGE_FILTERS } from "@/lib/limits/list-refusals";
import { listRefusalsOperation } from "@/lib/limits/operations";

// GET /v1/authorizations/refusals: authorizations a limit refused, newest first.
export const GET = apiRoute(listRefusalsOperation, async ({ db, principal, query, request }) => {
  const listing = await listRefusals(db, principal, { account: query.account || undefined }, query);
  const next = nextPageLink(
    pageOrigin(request, publicBaseUrl()),
    "/v1/authorizations/refusals",
    query,
    REFUSAL_PAGE_FILTERS,
    listing.nextCursor,
  );
  return {
    refusals: listing.refusals,
    nextPageUrl: next,
    meta: { pageSize: query.pageSize, hasMore: listing.hasMore },
  };
});
