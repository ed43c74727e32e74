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
  description:
    "A platform key sees every billing group, a bound key its own and every account below it (a reseller's subtree).",
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

// ---- provisioning (the platform; a reseller within its subtree: README "Provisioning") ----

const RESELLER =
  "A platform caller provisions any account; a caller bound to a reseller only the accounts below its own " +
  '(its own answers 403 `insufficient_scope`, another\'s 404; docs/contract.md "Reseller tiers").';
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
    `(docs/contract.md "Reseller tiers"). Recorded in the audit log (\`account.created\`). A reseller's caller ` +
    "creates customers within its subtree: `parentId` defaults to its own account (one outside answers 422 " +
    "`unknown_parent`), in its currency, without `openingBalance` (it tops the account up from its own balance) " +
    "or `accountcode` (the operator's).",
  scope: "accounts:write",
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
    "`disabled` flag; absent fields stay. Recorded in the audit log (`account.updated`, before and after). " +
    `${RESELLER} A reseller does not set an accountcode (403 naming it).`,
  scope: "accounts:write",
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
    `unless an operator disabled it. Send an \`Idempotency-Key\`: a retry then never tops up twice. ${RESELLER} ` +
    "A reseller's top-up comes from its own balance (an `adjustment` entry of the amount negated, `fundedBy`), in " +
    "the same transaction: 402 `insufficient_funds` when its balance plus credit limit, less the reservations open " +
    "at its tier (its own calls' and its customers' in progress), does not cover it.",
  scope: "payments:write",
  idempotent: true,
  params: accountId,
  body: topUpBodySchema,
  responses: { 201: { description: "The ledger entry and the account after it", body: balanceMovementSchema } },
  errors: ["invalid_request_body", "insufficient_funds", "payload_too_large"],
});

export const adjustAccountOperation = defineOperation({
  operationId: "adjustAccount",
  method: "POST",
  path: "/v1/accounts/{id}/adjustments",
  tag: "Provisioning",
  summary: "Adjust an account's balance",
  description:
    "A signed, non-zero correction (decimal string) with its reason: a ledger entry of kind `adjustment` and the " +
    `audit event \`account.adjusted\`, in one transaction. ${RESELLER} A reseller's adjustment moves the amount ` +
    "from (or, negative, back to) its own balance, as its top-up does (402 `insufficient_funds`).",
  scope: "payments:write",
  idempotent: true,
  params: accountId,
  body: adjustmentBodySchema,
  responses: { 201: { description: "The ledger entry and the account after it", body: balanceMovementSchema } },
  errors: ["invalid_request_body", "insufficient_funds", "payload_too_large"],
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
