import { defineOperation } from "@/lib/openapi/operation";
import { authorizationRequestSchema, authorizationSchema } from "./schemas";

/** POST /v1/authorizations (lib/openapi/operation.ts says what each field does). */
export const authorizeCallOperation = defineOperation({
  operationId: "authorizeCall",
  method: "POST",
  path: "/v1/authorizations",
  tag: "Billing",
  summary: "Authorize a prepaid call",
  description:
    "Before connecting a call, the switch asks how long it may last: `maxDurationSeconds` is the longest duration " +
    "whose price (the sell rate of `destination`, its billing increment, and one second for the rounding up of " +
    "the answered time) fits the group's balance + credit limit - the reservations of calls in progress, capped by " +
    "the request's `maxDurationSeconds` and MAX_CALL_SECONDS. That price is reserved until the call's CDR (same " +
    "`uuid`) arrives on `POST /v1/cdrs`, which charges the call as usual (once) and releases the reservation, or " +
    "until `expiresAt` (the grant plus a margin). Concurrent authorizations never reserve more than is available. " +
    "Posting the same `uuid` again answers the stored authorization (200, `Idempotent-Replayed: true`); its " +
    "destination must have the same digits (a leading `+` is ignored), else 409. " +
    "402 `insufficient_balance` when not one second is affordable or the group is disabled. " +
    "The account's limits (`GET /v1/limits`) hold here too, exactly under concurrency: a daily or monthly spend cap " +
    "shortens the grant as the balance does; a refusal answers its own code (429 `concurrent_calls_limit`, " +
    "`calls_per_second_limit`, `velocity_limit`; 402 `daily_spend_limit`, `monthly_spend_limit`; 403 " +
    "`destination_blocked`, `destination_not_allowed`) with the limit and its current value in `errors[]`, reserves " +
    "nothing and is listed by `GET /v1/authorizations/refusals`.",
  scope: "cdrs:write",
  body: authorizationRequestSchema,
  responses: {
    201: { description: "Granted: the reservation is held", body: authorizationSchema },
    200: {
      description: "Replay: this uuid was authorized before (header Idempotent-Replayed: true)",
      body: authorizationSchema,
    },
  },
  errors: [
    "billing_group_required",
    "insufficient_balance",
    "daily_spend_limit",
    "monthly_spend_limit",
    "destination_blocked",
    "destination_not_allowed",
    "concurrent_calls_limit",
    "calls_per_second_limit",
    "velocity_limit",
    "not_found",
    "no_rate",
    "conflict",
    "payload_too_large",
    "invalid_request_body",
  ],
});

/** The /v1 operations on authorizations, in the OpenAPI document's order (gathered by lib/api/operations.ts). */
export const AUTHORIZATION_OPERATIONS = [authorizeCallOperation] as const;
