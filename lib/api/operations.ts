import { z } from "zod";
import { ALERT_OPERATIONS } from "@/lib/alerts/operations";
import { exportAuditEventsOperation, listAuditEventsOperation } from "@/lib/audit/operations";
import { authorizeCallOperation } from "@/lib/authorizations/operations";
import {
  adjustAccountOperation,
  createAccountOperation,
  getAccountOperation,
  getBalanceOperation,
  listAccountsOperation,
  topUpAccountOperation,
  updateAccountOperation,
} from "@/lib/billing/operations";
import { exportCallsOperation, getCallOperation, listCallsOperation } from "@/lib/calls/operations";
import { createExportOperation, downloadExportOperation, getExportOperation } from "@/lib/exports/operations";
import { createApiKeyOperation, listApiKeysOperation, revokeApiKeyOperation } from "@/lib/keys/operations";
import { ingestCdrsOperation } from "@/lib/ingest/operations";
import {
  getInvoiceCallsOperation,
  getInvoiceOperation,
  getInvoicePdfOperation,
  listInvoicesOperation,
} from "@/lib/invoices/operations";
import { defineOperation, type Operation } from "@/lib/openapi/operation";
import {
  createSupplierOperation,
  downloadBuyDeckInForceOperation,
  downloadRateDeckOperation,
  downloadSellDeckInForceOperation,
  listBuyDecksOperation,
  listSellDecksOperation,
  listSuppliersOperation,
  updateSupplierOperation,
  uploadBuyDeckOperation,
  uploadSellDeckOperation,
} from "@/lib/rating/deck-operations";
import { setAutoRechargeOperation } from "@/lib/payments/operations";
import { lookupRateOperation } from "@/lib/rating/operations";
import { summarizeUsageOperation } from "@/lib/usage/operations";

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
 * Every /v1 operation, in the document's order. A route file under app/v1 serves exactly these (operations.test.ts
 * checks it both ways), so a new route comes with its operation.
 */
export const OPERATIONS: readonly Operation[] = [
  listCallsOperation,
  exportCallsOperation,
  getCallOperation,
  createExportOperation,
  getExportOperation,
  downloadExportOperation,
  summarizeUsageOperation,
  getBalanceOperation,
  lookupRateOperation,
  listAccountsOperation,
  getAccountOperation,
  createAccountOperation,
  updateAccountOperation,
  topUpAccountOperation,
  adjustAccountOperation,
  uploadSellDeckOperation,
  listSellDecksOperation,
  downloadSellDeckInForceOperation,
  downloadRateDeckOperation,
  listSuppliersOperation,
  createSupplierOperation,
  updateSupplierOperation,
  uploadBuyDeckOperation,
  listBuyDecksOperation,
  downloadBuyDeckInForceOperation,
  setAutoRechargeOperation,
  listInvoicesOperation,
  getInvoiceOperation,
  getInvoicePdfOperation,
  getInvoiceCallsOperation,
  ingestCdrsOperation,
  authorizeCallOperation,
  createApiKeyOperation,
  listApiKeysOperation,
  revokeApiKeyOperation,
  listAuditEventsOperation,
  exportAuditEventsOperation,
  ...ALERT_OPERATIONS,
  getOpenApiOperation,
];
