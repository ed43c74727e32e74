import { z } from "zod";
import { storableText } from "@/lib/db/storable-text";
import { idFilterSchema, idSchema } from "@/lib/ids/ids";
import { pageEnvelope, pageSizeParam } from "@/lib/http/query-params";
import { decimalMoney } from "@/lib/money/decimal-money";
import { ALL_EVENT_TYPES, WEBHOOK_EVENT_TYPES } from "./event-types";

// Bodies and answers of /v1/alert-thresholds and /v1/webhook-endpoints (README "Alerts and webhooks"). Money comes in
// as decimal strings (exact) and goes out as JSON numbers with at most 6 decimals, as everywhere in /v1.

export const MAX_THRESHOLDS = 20;

export const thresholdsBodySchema = z
  .strictObject({
    billingGroupId: idSchema("bg", "The account (platform callers; a group's caller may name its own only)").optional(),
    thresholds: z
      .array(decimalMoney("10.00"))
      .max(MAX_THRESHOLDS, `at most ${MAX_THRESHOLDS} thresholds`)
      .describe("Balances (decimal strings) at or below which `balance.low` fires; the whole set, [] clears it"),
  })
  .meta({ id: "AlertThresholdsRequest", description: "An account's low-balance thresholds, replaced as a whole" });

export const thresholdsSchema = z
  .object({
    billingGroupId: z.string(),
    currency: z.string().describe("The account's currency: the thresholds' unit"),
    thresholds: z
      .array(
        z.object({
          amount: z.number().describe("The balance at or below which `balance.low` fires"),
          crossed: z.boolean().describe("The balance is at or below it now (`balance.recovered` fires when it rises)"),
        }),
      )
      .describe("Highest first"),
  })
  .meta({ id: "AlertThresholds", description: "An account's low-balance thresholds" });

export const thresholdsQuerySchema = z.object({
  account: idFilterSchema("bg", "The account (platform callers: required)"),
});

const eventTypes = z
  .array(
    z.enum([ALL_EVENT_TYPES, ...WEBHOOK_EVENT_TYPES], {
      error: `must be one of ${[ALL_EVENT_TYPES, ...WEBHOOK_EVENT_TYPES].join(", ")}`,
    }),
  )
  .min(1, "name at least one event type (`*`: all)")
  .max(WEBHOOK_EVENT_TYPES.length + 1)
  .transform((types) => [...new Set(types)])
  .describe(`The event types it receives: ${WEBHOOK_EVENT_TYPES.join(", ")}, or \`*\` for every type`);

const url = z.string().trim().min(1, "is required").max(2048, "must be at most 2048 characters");

export const createEndpointBodySchema = z
  .strictObject({
    url: url.describe("https:// (or http://) URL of a public host; private and loopback addresses are refused"),
    eventTypes,
    description: storableText(200).optional().describe("A note for people"),
    billingGroupId: idSchema(
      "bg",
      "Platform callers: the account whose events it receives; absent, every account's (a platform endpoint)",
    ).optional(),
  })
  .meta({ id: "CreateWebhookEndpointRequest", description: "A new webhook endpoint" });

export const updateEndpointBodySchema = z
  .strictObject({
    url: url.optional(),
    eventTypes: eventTypes.optional(),
    description: storableText(200).nullable().optional(),
    disabled: z.boolean().optional().describe("true: nothing is sent to it (deliveries wait); false: enabled again"),
  })
  .refine((body) => Object.keys(body).length > 0, { message: "name at least one field to change" })
  .meta({ id: "UpdateWebhookEndpointRequest", description: "The fields to change; absent fields stay as they are" });

export const webhookEndpointSchema = z
  .object({
    id: z.string().describe("`we_...`"),
    url: z.string(),
    eventTypes: z.array(z.string()),
    description: z.string().nullable(),
    billingGroupId: z.string().nullable().describe("null: a platform endpoint (every account's events)"),
    disabled: z.boolean(),
    createdAt: z.string().describe("ISO 8601"),
    secretPrefix: z.string().describe("The start of the newest signing secret, to tell secrets apart"),
  })
  .meta({ id: "WebhookEndpoint", description: "Where events are POSTed, signed (Standard Webhooks)" });

export const createdEndpointSchema = webhookEndpointSchema
  .extend({ secret: z.string().describe("`whsec_...`: the signing secret, shown in this answer only") })
  .meta({ id: "CreatedWebhookEndpoint", description: "A new endpoint with its signing secret" });

export const endpointListSchema = z
  .object({ endpoints: z.array(webhookEndpointSchema) })
  .meta({ id: "WebhookEndpointList", description: "Webhook endpoints, oldest first" });

export const endpointQuerySchema = z.object({
  account: idFilterSchema("bg", "Platform callers: one account's endpoints only"),
});

export const deletedEndpointSchema = z.object({ id: z.string(), deleted: z.literal(true) });

export const deliveryAttemptSchema = z.object({
  attemptedAt: z.string().describe("When the attempt started, ISO 8601"),
  durationMs: z.number().int().describe("Until the answer ended (or the attempt was cut off)"),
  status: z.number().int().nullable().describe("The receiver's HTTP status; null when none arrived"),
  error: z.string().nullable().describe("Why it failed without a status, or how the answer was cut off"),
  responseExcerpt: z.string().nullable().describe("The start of the answer's body (1 KiB at most)"),
});

export const deliverySchema = z
  .object({
    eventId: z.string().describe("`msg_...`: the `webhook-id` the receiver saw"),
    type: z.string(),
    createdAt: z.string().describe("When the event happened, ISO 8601"),
    status: z.enum(["pending", "delivered", "failed"]).describe("failed: retries given up"),
    nextAttemptAt: z.string().nullable().describe("When the next attempt is due; null once delivered or failed"),
    attempts: z.array(deliveryAttemptSchema).describe("Every attempt, newest first"),
  })
  .meta({ id: "WebhookDelivery", description: "One event sent (or being sent) to one endpoint, with its attempts" });

export const deliveryPageSchema = z
  .object({ deliveries: z.array(deliverySchema), ...pageEnvelope })
  .meta({ id: "WebhookDeliveryPage", description: "One page of an endpoint's deliveries, newest event first" });

export const deliveryQuerySchema = z.object({
  pageSize: pageSizeParam({ max: 100, fallback: 20, items: "Deliveries" }),
  cursor: z.string().optional().describe("Opaque cursor taken from nextPageUrl; pass it unmodified"),
});

export const endpointParams = z.object({ id: idSchema("we", "Endpoint id (`we_...`)") });
export const deliveryParams = endpointParams.extend({
  eventId: idSchema("msg", "The delivery's event id (`msg_...`)"),
});

export type ThresholdsBody = z.output<typeof thresholdsBodySchema>;
export type Thresholds = z.output<typeof thresholdsSchema>;
export type CreateEndpointBody = z.output<typeof createEndpointBodySchema>;
export type UpdateEndpointBody = z.output<typeof updateEndpointBodySchema>;
export type WebhookEndpoint = z.output<typeof webhookEndpointSchema>;
export type CreatedEndpoint = z.output<typeof createdEndpointSchema>;
export type Delivery = z.output<typeof deliverySchema>;
export type DeliveryPage = z.output<typeof deliveryPageSchema>;
