import { alertsChangeContext } from "@/lib/alerts/endpoint-access";
import { createEndpoint, listEndpoints } from "@/lib/alerts/manage-endpoints";
import { createWebhookEndpointOperation, listWebhookEndpointsOperation } from "@/lib/alerts/operations";
import { createEndpointBodySchema, parseAlertsBody } from "@/lib/alerts/schemas";
import { apiRoute, json } from "@/lib/api/handler";
import { readJsonBody } from "@/lib/http/body";

export const GET = apiRoute(listWebhookEndpointsOperation, ({ db, principal, query }) =>
  listEndpoints(db, principal, query.account || undefined),
);

export const POST = apiRoute(createWebhookEndpointOperation, async ({ db, principal, request }) => {
  const body = parseAlertsBody(createEndpointBodySchema, await readJsonBody(request, { code: "invalid_request_body" }));
  const created = await createEndpoint(db, principal, body, alertsChangeContext(principal, request));
  return json(created, 201, { location: `/v1/webhook-endpoints/${created.id}` });
});
