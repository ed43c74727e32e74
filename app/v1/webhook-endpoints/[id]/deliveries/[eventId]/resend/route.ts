import { resendDelivery } from "@/lib/alerts/delivery-log";
import { alertsChangeContext } from "@/lib/alerts/endpoint-access";
import { resendWebhookDeliveryOperation } from "@/lib/alerts/operations";
import { apiRoute, json } from "@/lib/api/handler";

export const POST = apiRoute(resendWebhookDeliveryOperation, async ({ db, principal, params, request }) =>
  json(await resendDelivery(db, principal, params.id, params.eventId, alertsChangeContext(principal, request)), 202),
);
