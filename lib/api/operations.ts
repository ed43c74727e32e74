import { z } from "zod";
import { ALERT_OPERATIONS } from "@/lib/alerts/operations";
import { AUDIT_OPERATIONS } from "@/lib/audit/operations";
import { AUTHORIZATION_OPERATIONS } from "@/lib/authorizations/operations";
import { ACCOUNT_OPERATIONS, BALANCE_OPERATIONS } from "@/lib/billing/operations";
import { CALL_OPERATIONS } from "@/lib/calls/operations";
import { EXPORT_OPERATIONS } from "@/lib/exports/operations";
import { HISTORY_OPERATIONS } from "@/lib/history/operations";
import { INGEST_OPERATIONS } from "@/lib/ingest/operations";
import { INVOICE_OPERATIONS } from "@/lib/invoices/operations";
import { KEY_OPERATIONS } from "@/lib/keys/operations";
import { LIMIT_OPERATIONS } from "@/lib/limits/operations";
import { defineOperation, type Operation } from "@/lib/openapi/operation";
import { PAYMENT_OPERATIONS } from "@/lib/payments/operations";
import { QUALITY_OPERATIONS } from "@/lib/quality/operations";
import { DECK_OPERATIONS } from "@/lib/rating/deck-operations";
import { RATE_OPERATIONS } from "@/lib/rating/operations";
import { USAGE_OPERATIONS } from "@/lib/usage/operations";

/** GET /v1/openapi.json: public, and answered without apiRoute (app/v1/openapi.json/route.ts). */
export const getOpenApiOperation = defineOperation({
  operationId: "getOpenApi",
  method: "GET",
  path: "/v1/openapi.json",
  tag: "Meta",
  summary: "This OpenAPI document",
  description: "The OpenAPI 3.1 description of /v1, generated from the schemas the handlers use. No key needed.",
  scope: null,
  responses: { 200: { description: "OpenAPI 3.1 document", body: z.looseObject({}) } },
});

/**
 * Every /v1 operation, in the document's order: each concept declares and lists its own (its operations.ts), this
 * only orders the concepts. A route file under app/v1 serves exactly these (operations.test.ts checks it both ways),
 * so a new route comes with its operation.
 */
export const OPERATIONS: readonly Operation[] = [
  ...CALL_OPERATIONS,
  ...EXPORT_OPERATIONS,
  ...USAGE_OPERATIONS,
  ...BALANCE_OPERATIONS,
  ...RATE_OPERATIONS,
  ...ACCOUNT_OPERATIONS,
  ...HISTORY_OPERATIONS,
  ...DECK_OPERATIONS,
  ...PAYMENT_OPERATIONS,
  ...INVOICE_OPERATIONS,
  ...INGEST_OPERATIONS,
  ...AUTHORIZATION_OPERATIONS,
  ...LIMIT_OPERATIONS,
  ...KEY_OPERATIONS,
  ...AUDIT_OPERATIONS,
  ...ALERT_OPERATIONS,
  ...QUALITY_OPERATIONS,
  getOpenApiOperation,
];
