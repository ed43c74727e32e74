import { alertsChangeContext } from "@/lib/alerts/endpoint-access";
import { deleteEndpoint, getEndpoint, updateEndpoint } from "@/lib/alerts/manage-endpoints";
import {
  deleteWebhookEndpointOperation,
  getWebhookEndpointOperation,
  updateWebhookEndpointOperation,
} from "@/lib/alerts/operations";
import { apiRoute } from "@/lib/api/handler";

export const GET = apiRoute(getWebhookEndpointOperation, ({ db, principal, params }) =>
  getEndpoint(db, principal, params.id),
);

export const PATCH = apiRoute(updateWebhookEndpointOperation, async ({ db, principal, params, request, body }) => {
  return updateEndpoint(db, principal, params.id, body, alertsChangeContext(principal, request));
});

export const DELETE = apiRoute(deleteWebhookEndpointOperation, ({ db, principal, params, request }) =>
  deleteEndpoint(db, principal, params.id, alertsChangeContext(principal, request)),
);
