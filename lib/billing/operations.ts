import { z } from "zod";
import { idSchema } from "@/lib/ids/ids";
import { defineOperation } from "@/lib/openapi/operation";
import {
  accountDetailSchema,
  adjustmentBodySchema,
  balanceMovementSchema,
  createAccountBodySchema,
  topUpBodySchema,
  updateAccountBodySchema,
} from "./provisioning-schemas";
import { accountListSchema, accountSchema, balanceSchema } from "./schemas";

/** The /v1 operations on balances and accounts (lib/openapi/operation.ts says what each field does). */

export const getBalanceOperation = defineOperation({
  operationId: "getBalance",
  method: "GET",
  path: "/v1/balances",
  tag: "Billing",
  summary: "Balance of the key's billing group",
  description:
    "The balance of the billing group the key is bound to. A platform key (no group) answers 400 " +
    "`billing_group_required`; it reads a group's balance with `GET /v1/accounts/{id}`.",
  scope: "calls:read",
  responses: { 200: { description: "The balance", body: balanceSchema } },
  errors: ["billing_group_required"],
});

export const listAccountsOperation = defineOperation({
  operationId: "listAccounts",
  method: "GET",
  path: "/v1/accounts",
  tag: "Billing",
  summary: "Billing groups the key may see",
  description: "A platform key sees every billing group, a bound key only its own.",
  scope: "calls:read",
  responses: { 200: { description: "The accounts", body: accountListSchema } },
});

export const getAccountOperation = defineOperation({
  operationId: "getAccount",
  method: "GET",
  path: "/v1/accounts/{id}",
  tag: "Billing",
  summary: "One billing group",
  description: "How a platform key reads the balance of a chosen group. A group the key may not see answers 404.",
  scope: "calls:read",
  params: z.object({ id: idSchema("bg", "Billing group id (`bg_...`)") }),
  responses: { 200: { description: "The account", body: accountSchema } },
});

// ---- provisioning (platform keys; README "Provisioning") ----

const PLATFORM_ONLY = "Platform keys only: a key bound to a billing group answers 403 `insufficient_scope`.";
const accountId = z.object({ id: idSchema("bg", "Billing group id") });

export const createAccountOperation = defineOperation({
  operationId: "createAccount",
  method: "POST",
  path: "/v1/accounts",
  tag: "Provisioning",
  summary: "Create an account",
  description:
    'Creates a billing group. Money is a decimal string (`"25.00"`), exact to 6 decimals; an `openingBalance` is ' +
    `a ledger entry of kind \`opening\`. A \`parentId\` makes it a reseller's customer, in the parent's currency ` +
    `(docs/contract.md "Reseller tiers"). Recorded in the audit log (\`account.created\`). ${PLATFORM_ONLY}`,
  scope: "accounts:write",
  platformOnly: "provisioning",
  idempotent: true,
  body: createAccountBodySchema,
  responses: { 201: { description: "The account", body: accountDetailSchema } },
  errors: ["invalid_request_body", "unknown_parent", "currency_mismatch", "conflict", "payload_too_large"],
});

export const updateAccountOperation = defineOperation({
  operationId: "updateAccount",
  method: "PATCH",
  path: "/v1/accounts/{id}",
  tag: "Provisioning",
  summary: "Change an account",
  description:
    "Changes the name, credit limit, accountcode (409 `conflict` naming it when another account has it) or the " +
    "operator's `disabled` flag; absent fields stay. Recorded in the audit log (`account.updated`, before and after). " +
    PLATFORM_ONLY,
  scope: "accounts:write",
  platformOnly: "provisioning",
  idempotent: true,
  params: accountId,
  body: updateAccountBodySchema,
  responses: { 200: { description: "The account after the change", body: accountDetailSchema } },
  errors: ["invalid_request_body", "conflict", "payload_too_large"],
});

export const topUpAccountOperation = defineOperation({
  operationId: "topUpAccount",
  method: "POST",
  path: "/v1/accounts/{id}/top-ups",
  tag: "Provisioning",
  summary: "Top up an account",
  description:
    "Adds a positive amount (decimal string) to the balance: a ledger entry of kind `topup` and the audit event " +
    "`account.topped_up`, in one transaction. A top-up back above the credit limit enables the account again, " +
    `unless an operator disabled it. Send an \`Idempotency-Key\`: a retry then never tops up twice. ${PLATFORM_ONLY}`,
  scope: "payments:write",
  platformOnly: "provisioning",
  idempotent: true,
  params: accountId,
  body: topUpBodySchema,
  responses: { 201: { description: "The ledger entry and the account after it", body: balanceMovementSchema } },
  errors: ["invalid_request_body", "payload_too_large"],
});

export const adjustAccountOperation = defineOperation({
  operationId: "adjustAccount",
  method: "POST",
  path: "/v1/accounts/{id}/adjustments",
  tag: "Provisioning",
  summary: "Adjust an account's balance",
  description:
    "A signed, non-zero correction (decimal string) with its reason: a ledger entry of kind `adjustment` and the " +
    `audit event \`account.adjusted\`, in one transaction. ${PLATFORM_ONLY}`,
  scope: "payments:write",
  platformOnly: "provisioning",
  idempotent: true,
  params: accountId,
  body: adjustmentBodySchema,
  responses: { 201: { description: "The ledger entry and the account after it", body: balanceMovementSchema } },
  errors: ["invalid_request_body", "payload_too_large"],
});

/**
 * The /v1 operations of billing, in two runs of the OpenAPI document's order (gathered by lib/api/operations.ts):
 * the balance comes before the rate lookup, the accounts after it.
 */
export const BALANCE_OPERATIONS = [getBalanceOperation] as const;
export const ACCOUNT_OPERATIONS = [
  listAccountsOperation,
  getAccountOperation,
  createAccountOperation,
  updateAccountOperation,
  topUpAccountOperation,
  adjustAccountOperation,
] as const;
