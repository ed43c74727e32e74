import { listDeliveries } from "@/lib/alerts/delivery-log";
import { listWebhookDeliveriesOperation } from "@/lib/alerts/operations";
import type { DeliveryPage } from "@/lib/alerts/schemas";
import { apiRoute } from "@/lib/api/handler";
import { pageOrigin } from "@/lib/calls/list-calls";
import { publicBaseUrl } from "@/lib/config/env";

export const GET = apiRoute(listWebhookDeliveriesOperation, async ({ db, principal, params, query, request }) => {
  const page = { pageSize: query.pageSize, cursor: query.cursor || undefined };
  const listing = await listDeliveries(db, principal, params.id, page);
  const next = new URL(`/v1/webhook-endpoints/${params.id}/deliveries`, pageOrigin(request, publicBaseUrl()));
  next.search = new URLSearchParams({ pageSize: String(query.pageSize), cursor: listing.nextCursor ?? "" }).toString();
  const answer: DeliveryPage = {
    deliveries: listing.deliveries,
    nextPageUrl: listing.nextCursor ? next.toString() : null,
    meta: { pageSize: query.pageSize, hasMore: listing.hasMore },
  };
  return answer;
});
