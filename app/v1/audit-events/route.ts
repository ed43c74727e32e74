import { apiRoute } from "@/lib/api/handler";
import { AUDIT_PAGE_FILTERS, auditFiltersFromQuery, listAuditEvents } from "@/lib/audit/list-audit-events";
import { listAuditEventsOperation } from "@/lib/audit/operations";
import type { AuditEventPage } from "@/lib/audit/schemas";
import { publicBaseUrl } from "@/lib/config/env";
import { nextPageLink, pageOrigin } from "@/lib/http/next-page-link";

export const GET = apiRoute(listAuditEventsOperation, async ({ db, principal, query, request }) => {
  const listing = await listAuditEvents(db, principal, auditFiltersFromQuery(query), {
    pageSize: query.pageSize,
    cursor: query.cursor || undefined,
  });
  const origin = pageOrigin(request, publicBaseUrl());
  const page: AuditEventPage = {
    events: listing.events,
    nextPageUrl: nextPageLink(origin, "/v1/audit-events", query, AUDIT_PAGE_FILTERS, listing.nextCursor),
    meta: { pageSize: query.pageSize, hasMore: listing.hasMore },
  };
  return page;
});
