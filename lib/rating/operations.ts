import { defineOperation } from "@/lib/openapi/operation";
import { rateQuerySchema, rateSchema } from "./schemas";

/** GET /v1/rates (lib/openapi/operation.ts says what each field does). */
export const lookupRateOperation = defineOperation({
  operationId: "lookupRate",
  method: "GET",
  path: "/v1/rates",
  tag: "Billing",
  summary: "Sell rate for a destination",
  description:
    "Longest-prefix match of `destination` on the rate deck of the key's billing group in force now (a deck " +
    "imported for a later date is not yet in force). Only sell rates are returned, with the rate's `connectFee` " +
    "and `minCharge` (null when none) and the deck's `effectiveFrom`. A platform key answers 400 `billing_group_required`.",
  scope: "calls:read",
  query: rateQuerySchema,
  responses: { 200: { description: "The matched rate", body: rateSchema } },
  errors: ["billing_group_required", "no_rate"],
});

/** The /v1 operations on the rate lookup, in the OpenAPI document's order (gathered by lib/api/operations.ts). */
export const RATE_OPERATIONS = [lookupRateOperation] as const;
