import { defineOperation } from "@/lib/openapi/operation";
import {
  limitsBodySchema,
  limitsQuerySchema,
  limitsSchema,
  listRefusalsQuerySchema,
  refusalPageSchema,
} from "./schemas";

const LAYERS =
  "An account has a layer of limits per setter, each enforced in full by `POST /v1/authorizations` (docs/contract.md " +
  "\"Limits\"): the operator's, set by a platform caller; one provider's per reseller above the account (its " +
  "parent, and each one further up), each set by that reseller and tightening only the operator's and those further " +
  "up; and the customer's, set by the account's owners and admins (or a key of the account with `limits:write`), " +
  "which may only tighten all of them.";

export const getLimitsOperation = defineOperation({
  operationId: "getLimits",
  method: "GET",
  path: "/v1/limits",
  tag: "Billing",
  summary: "An account's limits",
  description:
    `${LAYERS} The answer has every layer (\`providers\` nearest first; \`provider\` the caller's own when it is one of them, else the parent's, null for an account without a parent) and what counts against them now: calls in progress, open reservations, ` +
    "the prices settled today and this month in the account's time zone. A platform caller names the account " +
    "(`account`); a caller bound to an account reads its own (another answers 404).",
  scope: "calls:read",
  query: limitsQuerySchema,
  responses: { 200: { description: "The limits", body: limitsSchema } },
  errors: ["invalid_parameter"],
});

export const putLimitsOperation = defineOperation({
  operationId: "putLimits",
  method: "PUT",
  path: "/v1/limits",
  tag: "Billing",
  summary: "Replace the caller's layer of an account's limits",
  description:
    `${LAYERS} The body replaces the caller's whole layer (absent or null: no limit). A provider's or customer's number above a ` +
    "layer over it answers 422 naming it. Recorded in the audit log as `limits.updated` (the layer before and after). " +
    "Takes an `Idempotency-Key`.",
  scope: "limits:write",
  idempotent: true,
  body: limitsBodySchema,
  responses: { 200: { description: "The limits now", body: limitsSchema } },
  errors: ["invalid_request_body", "payload_too_large"],
});

export const listRefusalsOperation = defineOperation({
  operationId: "listAuthorizationRefusals",
  method: "GET",
  path: "/v1/authorizations/refusals",
  tag: "Billing",
  summary: "Authorizations refused by a limit",
  description:
    "Newest first, cursor-paged as the other listings (`nextPageUrl`): each refusal names the limit, its value and " +
    "what counted against it then. Refusals for the balance (`insufficient_balance`) or a missing rate are not kept " +
    "here. A caller bound to an account sees its own; a platform caller every account's, or one (`account`).",
  scope: "calls:read",
  query: listRefusalsQuerySchema,
  responses: { 200: { description: "One page of refusals", body: refusalPageSchema } },
  errors: ["invalid_cursor"],
});

/** The /v1 operations on limits, in the OpenAPI document's order (gathered by lib/api/operations.ts). */
export const LIMIT_OPERATIONS = [getLimitsOperation, putLimitsOperation, listRefusalsOperation] as const;
