import { apiRoute } from "@/lib/api/handler";
import { auditFiltersFromQuery, listAuditEvents, nextAuditPageUrl } from "@/lib/audit/list-audit-events";
import { listAuditEventsOperation } from "@/lib/audit/operations";
import type { AuditEventPage } from "@/lib/audit/schemas";
import { pageOrigin } from "@/lib/calls/list-calls";
import { publicBaseUrl } from "@/lib/config/env";

export const GET = apiRoute(listAuditEventsOperation, async ({ db, principal, query, request }) => {
  const listing = await listAuditEvents(db, principal, auditFiltersFromQuery(query), {
    pageSize: query.pageSize,
    cursor: query.cursor || undefined,
  });
  const nextPageUrl = listing.nextCursor
    ? nextAuditPageUrl(pageOrigin(request, publicBaseUrl()), query, listing.nextCursor)
    : null;
  const page: AuditEventPage = {
    events: listing.events,
    nextPageUrl,
    meta: { pageSize: query.pageSize, hasMore: listing.hasMore },
  };
  return page;
});
