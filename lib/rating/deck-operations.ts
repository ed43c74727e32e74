import { z } from "zod";
import { idSchema, serialIdSchema } from "@/lib/ids/ids";
import { defineOperation } from "@/lib/openapi/operation";
import {
  createSupplierBodySchema,
  deckDiffSchema,
  deckImportSchema,
  deckListQuerySchema,
  deckPageSchema,
  deckUploadQuerySchema,
  supplierListSchema,
  supplierSchema,
  updateSupplierBodySchema,
} from "./schemas";

// The /v1 operations on rate decks and suppliers (docs/contract.md §17; README "Provisioning"). `rates:write` both
// changes and reads them. Suppliers and their buy decks: platform keys and staff sessions only (the operator's costs).
// An account's sell decks: also a reseller's, within its subtree (docs/contract.md "Reseller tiers").

const PLATFORM_ONLY =
  "Platform keys and staff sessions only: a key bound to a billing group answers 403 `insufficient_scope`.";
const RESELLER_READS =
  "A caller bound to a reseller reads its own account's decks (what it pays) and its subtree's; another account's " +
  "answer 404.";
const accountId = z.object({ id: idSchema("bg", "Billing group id") });
const supplierId = z.object({ id: idSchema("sup", "Supplier id (`sup_...`)") });
const deckId = z.object({ id: serialIdSchema("Rate deck id (from a listing or an import)") });
const csvBody = {
  "text/csv": z
    .string()
    .describe(
      "The deck: a header `prefix,rate,increment[,description][,connectFee][,minCharge]` (any order, case-insensitive), " +
        "then one line per prefix; rate per minute, fees per call, decimals with at most 6 places. At most 5 MiB.",
    ),
};
const csvFile = {
  description: "The deck as CSV, in the columns an upload takes",
  body: z.string(),
  contentType: "text/csv",
};

const uploadDescription = (owner: string, extra: string, who: string) =>
  `Uploads a ${owner} rate deck as \`text/csv\` (the same format as the admin CLI's import). It takes effect at ` +
  "`effectiveFrom` (query; default now, or 1970-01-01 for the first deck); decks are history and never replaced " +
  "(409 `conflict` naming `effectiveFrom` when one takes effect at that instant). `dryRun=true` answers the diff " +
  "against the deck in force at `effectiveFrom` (added, removed and changed prefixes with the old and new terms) and " +
  `margin warnings (sell below the buy rate of a supplier's longest matching prefix, or under \`minMargin\` %), ${extra}` +
  "and writes nothing. Otherwise the deck is imported in one transaction with the audit event `rate_deck.imported`. " +
  "A bad line answers 422 naming the line and the field. Send an `Idempotency-Key`: a retry imports once. " +
  who;

export const uploadSellDeckOperation = defineOperation({
  operationId: "uploadSellDeck",
  method: "POST",
  path: "/v1/accounts/{id}/rate-decks",
  tag: "Provisioning",
  summary: "Upload a billing group's sell deck",
  description: uploadDescription(
    "billing group's (sell)",
    "against every supplier's buy deck in force then (platform callers only), ",
    "A child account's deck is also checked against its parent's own deck in force then (`parentCosts`: per " +
      "prefix the parent's rate, below cost, unpriced): an import with a rate below the parent's answers 422 " +
      "`below_cost` naming the prefixes, unless `allowBelowCost=true`. The platform uploads any account's deck; a " +
      "caller bound to a reseller its subtree's customers' only (its own account 403 `insufficient_scope`, another " +
      "404), and its dry run never shows the suppliers' rates.",
  ),
  scope: "rates:write",
  idempotent: true,
  params: accountId,
  query: deckUploadQuerySchema,
  body: csvBody["text/csv"],
  otherBodies: csvBody,
  responses: {
    200: { description: "Dry run: the diff and margin warnings", body: deckDiffSchema },
    201: { description: "The deck imported", body: deckImportSchema },
  },
  errors: ["invalid_request_body", "below_cost", "conflict", "payload_too_large"],
});

export const listSellDecksOperation = defineOperation({
  operationId: "listSellDecks",
  method: "GET",
  path: "/v1/accounts/{id}/rate-decks",
  tag: "Provisioning",
  summary: "A billing group's decks and their history",
  description:
    "Every deck of the group, newest effective-from first: when it takes effect, when and by whom it was imported, " +
    `its size and status (scheduled, in force, superseded). Paged like \`GET /v1/calls\`. ${RESELLER_READS}`,
  scope: "rates:write",
  params: accountId,
  query: deckListQuerySchema,
  responses: { 200: { description: "A page of decks", body: deckPageSchema } },
  errors: ["invalid_cursor"],
});

export const downloadSellDeckInForceOperation = defineOperation({
  operationId: "downloadSellDeckInForce",
  method: "GET",
  path: "/v1/accounts/{id}/rate-decks/current",
  tag: "Provisioning",
  summary: "Download the group's deck in force now",
  description: `The sell deck rating calls that start now, as CSV (404 when the group has none). ${RESELLER_READS}`,
  scope: "rates:write",
  params: accountId,
  responses: { 200: csvFile },
});

export const downloadRateDeckOperation = defineOperation({
  operationId: "downloadRateDeck",
  method: "GET",
  path: "/v1/rate-decks/{id}",
  tag: "Provisioning",
  summary: "Download a deck",
  description:
    "Any deck (sell or buy, in force or history) as CSV, by its id. A caller bound to a reseller: the sell decks of " +
    "its own account and its subtree only (any other id answers 404).",
  scope: "rates:write",
  params: deckId,
  responses: { 200: csvFile },
});

export const listSuppliersOperation = defineOperation({
  operationId: "listSuppliers",
  method: "GET",
  path: "/v1/suppliers",
  tag: "Provisioning",
  summary: "Suppliers",
  description: `Every supplier (carrier) by name. ${PLATFORM_ONLY}`,
  scope: "rates:write",
  platformOnly: "rating",
  responses: { 200: { description: "The suppliers", body: supplierListSchema } },
});

export const createSupplierOperation = defineOperation({
  operationId: "createSupplier",
  method: "POST",
  path: "/v1/suppliers",
  tag: "Provisioning",
  summary: "Create a supplier",
  description:
    "A supplier (carrier) whose buy deck prices the platform's cost of calls routed to its gateway; 409 `conflict` " +
    `naming \`gatewayName\` when another supplier maps it. Audited (\`supplier.created\`). ${PLATFORM_ONLY}`,
  scope: "rates:write",
  platformOnly: "rating",
  idempotent: true,
  body: createSupplierBodySchema,
  responses: { 201: { description: "The supplier", body: supplierSchema } },
  errors: ["invalid_request_body", "conflict", "payload_too_large"],
});

export const updateSupplierOperation = defineOperation({
  operationId: "updateSupplier",
  method: "PATCH",
  path: "/v1/suppliers/{id}",
  tag: "Provisioning",
  summary: "Change a supplier",
  description: `Its name or gateway name (null removes it); absent fields stay. Audited (\`supplier.updated\`). ${PLATFORM_ONLY}`,
  scope: "rates:write",
  platformOnly: "rating",
  idempotent: true,
  params: supplierId,
  body: updateSupplierBodySchema,
  responses: { 200: { description: "The supplier after the change", body: supplierSchema } },
  errors: ["invalid_request_body", "conflict", "payload_too_large"],
});

export const uploadBuyDeckOperation = defineOperation({
  operationId: "uploadBuyDeck",
  method: "POST",
  path: "/v1/suppliers/{id}/rate-decks",
  tag: "Provisioning",
  summary: "Upload a supplier's buy deck",
  description: uploadDescription("supplier's (buy)", "for every group's sell deck in force then, ", PLATFORM_ONLY),
  scope: "rates:write",
  platformOnly: "rating",
  idempotent: true,
  params: supplierId,
  query: deckUploadQuerySchema,
  body: csvBody["text/csv"],
  otherBodies: csvBody,
  responses: {
    200: { description: "Dry run: the diff and margin warnings", body: deckDiffSchema },
    201: { description: "The deck imported", body: deckImportSchema },
  },
  errors: ["invalid_request_body", "conflict", "payload_too_large"],
});

export const listBuyDecksOperation = defineOperation({
  operationId: "listBuyDecks",
  method: "GET",
  path: "/v1/suppliers/{id}/rate-decks",
  tag: "Provisioning",
  summary: "A supplier's decks and their history",
  description: `As for a billing group's decks. ${PLATFORM_ONLY}`,
  scope: "rates:write",
  platformOnly: "rating",
  params: supplierId,
  query: deckListQuerySchema,
  responses: { 200: { description: "A page of decks", body: deckPageSchema } },
  errors: ["invalid_cursor"],
});

export const downloadBuyDeckInForceOperation = defineOperation({
  operationId: "downloadBuyDeckInForce",
  method: "GET",
  path: "/v1/suppliers/{id}/rate-decks/current",
  tag: "Provisioning",
  summary: "Download the supplier's deck in force now",
  description: `The buy deck pricing calls that start now, as CSV (404 when it has none). ${PLATFORM_ONLY}`,
  scope: "rates:write",
  platformOnly: "rating",
  params: supplierId,
  responses: { 200: csvFile },
});

/** The /v1 operations on rate decks and suppliers, in the OpenAPI document's order (gathered by lib/api/operations.ts). */
export const DECK_OPERATIONS = [
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
] as const;
