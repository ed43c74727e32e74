import { z } from "zod";
import { idSchema } from "@/lib/ids/ids";
import { defineOperation } from "@/lib/openapi/operation";
import { eraseCallsBodySchema, eraseCallsResultSchema } from "./erase-calls";

export const eraseAccountCallsOperation = defineOperation({
  operationId: "eraseAccountCalls",
  method: "POST",
  path: "/v1/accounts/{id}/erase-calls",
  tag: "Provisioning",
  summary: "Erase an account's calls",
  description:
    "Erases the account's calls that started before `before` (every call without it) from PostgreSQL and from the " +
    "history tier (ClickHouse), on the customer's request. Usage, invoices, notes and the ledger stay as they were; " +
    "the calls are gone from listings, details and exports. 409 `conflict` naming `before` when a call in range is " +
    "of a period not yet invoiced (run the invoice run first). Recorded in the audit log (`account.calls_erased`, " +
    "with the counts). Send an `Idempotency-Key`: a retry answers the first answer. Platform keys only: a key bound " +
    "to a billing group answers 403 `insufficient_scope`.",
  scope: "accounts:write",
  platformOnly: "provisioning",
  idempotent: true,
  params: z.object({ id: idSchema("bg", "Billing group id") }),
  body: eraseCallsBodySchema,
  responses: { 200: { description: "What was erased", body: eraseCallsResultSchema } },
  errors: ["invalid_request_body", "conflict", "payload_too_large", "unavailable"],
});

/** The history tier's /v1 operations (gathered by lib/api/operations.ts after the accounts'). */
export const HISTORY_OPERATIONS = [eraseAccountCallsOperation] as const;
