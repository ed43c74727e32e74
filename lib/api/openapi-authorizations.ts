import type { z } from "zod";
import type { OpenApiHelpers, OpenApiOperation } from "./openapi-types";
import { authorizationRequestSchema, authorizationSchema } from "@/lib/authorizations/schemas";

/** POST /v1/authorizations in the OpenAPI document (openapi.ts includes it). */
export const OPENAPI_AUTHORIZATIONS = {
  requestSchemas: [authorizationRequestSchema] as z.ZodType[],
  responseSchemas: [authorizationSchema] as z.ZodType[],
  paths({ ok, commonErrors, ref }: OpenApiHelpers): Record<string, Record<string, OpenApiOperation>> {
    return {
      "/v1/authorizations": {
        post: {
          operationId: "authorizeCall",
          summary: "Authorize a prepaid call",
          description:
            "Before connecting a call, the switch asks how long it may last: `maxDurationSeconds` is the longest duration " +
            "whose price (the sell rate of `destination`, its billing increment, and one second for the rounding up of " +
            "the answered time) fits the group's balance + credit limit - the reservations of calls in progress, capped by " +
            "the request's `maxDurationSeconds` and MAX_CALL_SECONDS. That price is reserved until the call's CDR (same " +
            "`uuid`) arrives on `POST /v1/cdrs`, which charges the call as usual (once) and releases the reservation, or " +
            "until `expiresAt` (the grant plus a margin). Concurrent authorizations never reserve more than is available. " +
            "Posting the same `uuid` again answers the stored authorization (200, `Idempotent-Replayed: true`). " +
            "402 `insufficient_balance` when not one second is affordable or the group is disabled.",
          tags: ["Billing"],
          "x-scope": "cdrs:write",
          requestBody: { required: true, content: { "application/json": { schema: ref("AuthorizationRequest") } } },
          responses: {
            ...ok("Granted: the reservation is held", ref("Authorization"), "201"),
            ...ok("Replay: this uuid was authorized before (header Idempotent-Replayed: true)", ref("Authorization")),
            ...commonErrors({
              "400": ["billing_group_required"],
              "402": ["insufficient_balance"],
              "404": ["not_found", "no_rate"],
              "409": ["conflict"],
              "413": ["payload_too_large"],
              "422": ["invalid_body"],
            }),
          },
        },
      },
    };
  },
};
