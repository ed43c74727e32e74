import { z } from "zod";
import { idSchema } from "@/lib/ids/ids";
import { defineOperation } from "@/lib/openapi/operation";
import { decimalMoney } from "@/lib/money/decimal-money";

const money = (description: string) => decimalMoney().describe(description);

export const autoRechargeBodySchema = z
  .strictObject({
    enabled: z.boolean().describe("false turns auto-recharge off (threshold and amount are then ignored)"),
    threshold: money("When the balance falls below this, a charge is queued").optional(),
    amount: money("What is charged to the saved card (within TOPUP_MIN and TOPUP_MAX)").optional(),
  })
  .refine((b) => !b.enabled || (b.threshold !== undefined && b.amount !== undefined), {
    message: "threshold and amount are required when enabled",
    path: ["amount"],
  })
  .meta({ id: "AutoRechargeRequest", description: "A group's auto-recharge setting" });

export const autoRechargeSchema = z
  .object({
    accountId: z.string(),
    enabled: z.boolean(),
    threshold: z.number().nullable(),
    amount: z.number().nullable(),
    currency: z.string(),
    cardSaved: z.boolean().describe("A card saved by an online top-up, which auto-recharge charges"),
  })
  .meta({ id: "AutoRecharge", description: "A group's auto-recharge setting" });

export const setAutoRechargeOperation = defineOperation({
  operationId: "setAutoRecharge",
  method: "PUT",
  path: "/v1/accounts/{id}/auto-recharge",
  tag: "Provisioning",
  summary: "Set an account's auto-recharge",
  description:
    "When the balance falls below `threshold`, `amount` is charged to the card the group saved with its last online " +
    "top-up (once per crossing; docs/contract.md §20). `enabled: false` turns it off. Audited " +
    "(`auto_recharge.updated`). Platform keys only: a key bound to a billing group answers 403 `insufficient_scope` " +
    "(members set it in the portal).",
  scope: "payments:write",
  platformOnly: "provisioning",
  params: z.object({ id: idSchema("bg", "Billing group id") }),
  body: autoRechargeBodySchema,
  responses: { 200: { description: "The setting after the change", body: autoRechargeSchema } },
  errors: ["invalid_request_body", "payload_too_large"],
});

/** The /v1 operations on payments, in the OpenAPI document's order (gathered by lib/api/operations.ts). */
export const PAYMENT_OPERATIONS = [setAutoRechargeOperation] as const;
