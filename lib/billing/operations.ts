import { z } from "zod";
import { defineOperation } from "@/lib/openapi/operation";
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
  params: z.object({ id: z.string().describe("Billing group id (`bg_...`)") }),
  responses: { 200: { description: "The account", body: accountSchema } },
});
