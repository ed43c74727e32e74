import { defineOperation } from "@/lib/openapi/operation";
import {
  createdEndpointSchema,
  createEndpointBodySchema,
  deletedEndpointSchema,
  deliveryPageSchema,
  deliveryParams,
  deliveryQuerySchema,
  deliverySchema,
  endpointListSchema,
  endpointParams,
  endpointQuerySchema,
  thresholdsBodySchema,
  thresholdsQuerySchema,
  thresholdsSchema,
  updateEndpointBodySchema,
  webhookEndpointSchema,
} from "./schemas";

/**
 * The /v1 operations on alerts: low-balance thresholds and webhook endpoints (routes in app/v1/alert-thresholds and
 * app/v1/webhook-endpoints; docs/contract.md §18). A caller bound to a billing group reaches its own group's only,
 * anything else answers 404; a platform caller every group's and the platform's endpoints.
 */

const REACH =
  "A caller bound to a billing group reaches its own account's only (another's answers 404, as an unknown id); a " +
  "platform caller every account's and the platform's own.";

export const getAlertThresholdsOperation = defineOperation({
  operationId: "getAlertThresholds",
  method: "GET",
  path: "/v1/alert-thresholds",
  tag: "Alerts",
  summary: "Low-balance thresholds of an account",
  description: `The balances at or below which \`balance.low\` fires, highest first, each with whether the balance is at or below it now. A platform caller names the account (\`account\`). ${REACH}`,
  scope: "alerts:read",
  query: thresholdsQuerySchema,
  responses: { 200: { description: "The thresholds", body: thresholdsSchema } },
});

export const putAlertThresholdsOperation = defineOperation({
  operationId: "putAlertThresholds",
  method: "PUT",
  path: "/v1/alert-thresholds",
  tag: "Alerts",
  summary: "Replace the low-balance thresholds of an account",
  description:
    'The whole set (`[]` clears it), as decimal strings (`"10.00"`). A threshold the balance is already at or ' +
    "below does not fire when set, only at its next crossing. Recorded in the audit log as `alert_threshold.changed` " +
    `(before and after). ${REACH}`,
  scope: "alerts:write",
  body: thresholdsBodySchema,
  responses: { 200: { description: "The thresholds now", body: thresholdsSchema } },
  errors: ["invalid_request_body", "payload_too_large"],
});

export const listWebhookEndpointsOperation = defineOperation({
  operationId: "listWebhookEndpoints",
  method: "GET",
  path: "/v1/webhook-endpoints",
  tag: "Alerts",
  summary: "List webhook endpoints",
  description: `Oldest first, never a secret (its first characters only). ${REACH}`,
  scope: "alerts:read",
  query: endpointQuerySchema,
  responses: { 200: { description: "The endpoints", body: endpointListSchema } },
});

export const createWebhookEndpointOperation = defineOperation({
  operationId: "createWebhookEndpoint",
  method: "POST",
  path: "/v1/webhook-endpoints",
  tag: "Alerts",
  summary: "Create a webhook endpoint",
  description:
    "An endpoint receiving the named event types, signed with a new `whsec_` secret that this answer alone shows " +
    "(Standard Webhooks). The URL's host must be public: one resolving to a loopback, private, link-local or " +
    "otherwise reserved address is refused with 422 naming `url`. A platform caller may name `billingGroupId`; " +
    "without it the endpoint receives every account's events. Recorded in the audit log as " +
    "`webhook_endpoint.created`.",
  scope: "alerts:write",
  idempotent: true,
  body: createEndpointBodySchema,
  responses: { 201: { description: "The endpoint with its secret", body: createdEndpointSchema } },
  errors: ["invalid_request_body", "payload_too_large"],
});

export const getWebhookEndpointOperation = defineOperation({
  operationId: "getWebhookEndpoint",
  method: "GET",
  path: "/v1/webhook-endpoints/{id}",
  tag: "Alerts",
  summary: "One webhook endpoint",
  description: REACH,
  scope: "alerts:read",
  params: endpointParams,
  responses: { 200: { description: "The endpoint", body: webhookEndpointSchema } },
});

export const updateWebhookEndpointOperation = defineOperation({
  operationId: "updateWebhookEndpoint",
  method: "PATCH",
  path: "/v1/webhook-endpoints/{id}",
  tag: "Alerts",
  summary: "Change or disable a webhook endpoint",
  description:
    "Changes the URL (checked as on creation), event types or description, or disables it (`disabled: true`: no " +
    "event is sent to it, its deliveries wait) and enables it again. Recorded in the audit log as " +
    `\`webhook_endpoint.updated\` (before and after). ${REACH}`,
  scope: "alerts:write",
  params: endpointParams,
  body: updateEndpointBodySchema,
  responses: { 200: { description: "The endpoint after the change", body: webhookEndpointSchema } },
  errors: ["invalid_request_body", "payload_too_large"],
});

export const deleteWebhookEndpointOperation = defineOperation({
  operationId: "deleteWebhookEndpoint",
  method: "DELETE",
  path: "/v1/webhook-endpoints/{id}",
  tag: "Alerts",
  summary: "Delete a webhook endpoint",
  description: `With its pending deliveries and its delivery log. Recorded in the audit log as \`webhook_endpoint.deleted\`. ${REACH}`,
  scope: "alerts:write",
  params: endpointParams,
  responses: { 200: { description: "Deleted", body: deletedEndpointSchema } },
});

export const testWebhookEndpointOperation = defineOperation({
  operationId: "testWebhookEndpoint",
  method: "POST",
  path: "/v1/webhook-endpoints/{id}/test",
  tag: "Alerts",
  summary: "Send a test event",
  description:
    "A `webhook.test` event for this endpoint alone, through the same outbox, signing, retries and delivery log as " +
    "every event; the answer is its delivery, still pending (follow it in the delivery log). A disabled endpoint's " +
    `test waits until it is enabled. Recorded in the audit log as \`webhook_endpoint.test_sent\`. ${REACH}`,
  scope: "alerts:write",
  idempotent: true,
  params: endpointParams,
  responses: { 202: { description: "The test event's delivery", body: deliverySchema } },
});

export const listWebhookDeliveriesOperation = defineOperation({
  operationId: "listWebhookDeliveries",
  method: "GET",
  path: "/v1/webhook-endpoints/{id}/deliveries",
  tag: "Alerts",
  summary: "The delivery log of an endpoint",
  description:
    "The events sent (or being sent) to the endpoint, newest first, each with its state and every attempt: when, " +
    "the status code, how long it took, the start of the answer (1 KiB) or the error. Paged with a signed cursor, " +
    `\`nextPageUrl\` as for calls. ${REACH}`,
  scope: "alerts:read",
  params: endpointParams,
  query: deliveryQuerySchema,
  responses: { 200: { description: "One page of deliveries", body: deliveryPageSchema } },
});

export const resendWebhookDeliveryOperation = defineOperation({
  operationId: "resendWebhookDelivery",
  method: "POST",
  path: "/v1/webhook-endpoints/{id}/deliveries/{eventId}/resend",
  tag: "Alerts",
  summary: "Resend a delivery",
  description:
    "The event is sent to the endpoint again now (same `webhook-id`, so a receiver that deduplicates sees it once), " +
    "with a fresh round of retries, whether it was delivered, failed or still waiting; 409 `conflict` while an " +
    `attempt is in flight. Recorded in the audit log as \`webhook_delivery.resent\`. ${REACH}`,
  scope: "alerts:write",
  params: deliveryParams,
  responses: { 202: { description: "The delivery, due now", body: deliverySchema } },
  errors: ["conflict"],
});

export const ALERT_OPERATIONS = [
  getAlertThresholdsOperation,
  putAlertThresholdsOperation,
  listWebhookEndpointsOperation,
  createWebhookEndpointOperation,
  getWebhookEndpointOperation,
  updateWebhookEndpointOperation,
  deleteWebhookEndpointOperation,
  testWebhookEndpointOperation,
  listWebhookDeliveriesOperation,
  resendWebhookDeliveryOperation,
] as const;
