import { sendTestEvent } from "@/lib/alerts/delivery-log";
import { alertsChangeContext } from "@/lib/alerts/endpoint-access";
import { testWebhookEndpointOperation } from "@/lib/alerts/operations";
import { apiRoute, json } from "@/lib/api/handler";

// POST /v1/webhook-endpoints/{id}/test: a test event through the real outbox and delivery worker.
export const POST = apiRoute(testWebhookEndpointOperation, async ({ db, principal, params, request }) =>
  json(await sendTestEvent(db, principal, params.id, alertsChangeContext(principal, request)), 202),
);
