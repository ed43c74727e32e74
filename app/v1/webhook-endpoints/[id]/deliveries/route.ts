import { listDeliveries } from "@/lib/alerts/delivery-log";
import { listWebhookDeliveriesOperation } from "@/lib/alerts/operations";
import type { DeliveryPage } from "@/lib/alerts/schemas";
import { apiRoute } from "@/lib/api/handler";
import { publicBaseUrl } from "@/lib/config/env";
import { nextPageLink, pageOrigin } from "@/lib/http/next-page-link";

export const GET = apiRoute(listWebhookDeliveriesOperation, async ({ db, principal, params, query, request }) => {
  const page = { pageSize: query.pageSize, cursor: query.cursor || undefined };
  const listing = await listDeliveries(db, principal, params.id, page);
  const origin = pageOrigin(request, publicBaseUrl());
  const path = `/v1/webhook-endpoints/${params.id}/deliveries` as const;
  const answer: DeliveryPage = {
    deliveries: listing.deliveries,
    nextPageUrl: nextPageLink(origin, path, query, [], listing.nextCursor),
    meta: { pageSize: query.pageSize, hasMore: listing.hasMore },
  };
  return answer;
});
