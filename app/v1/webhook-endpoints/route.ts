import { alertsChangeContext } from "@/lib/alerts/endpoint-access";
import { createEndpoint, listEndpoints } from "@/lib/alerts/manage-endpoints";
import { createWebhookEndpointOperation, listWebhookEndpointsOperation } from "@/lib/alerts/operations";
import { apiRoute, json } from "@/lib/api/handler";

export const GET = apiRoute(listWebhookEndpointsOperation, ({ db, principal, query }) =>
  listEndpoints(db, principal, query.account || undefined),
);

export const POST = apiRoute(createWebhookEndpointOperation, async ({ db, principal, request, body }) => {
  const created = await createEndpoint(db, principal, body, alertsChangeContext(principal, request));
  return json(created, 201, { location: `/v1/webhook-endpoints/${created.id}` });
});
