import { apiRoute } from "@/lib/api/handler";
import { platformChangeContext } from "@/lib/billing/change-context";
import { setAutoRecharge } from "@/lib/payments/auto-recharge";
import { autoRechargeAnswer } from "@/lib/payments/auto-recharge-answer";
import { setAutoRechargeOperation } from "@/lib/payments/operations";

// PUT /v1/accounts/{id}/auto-recharge: staff set or turn off a group's auto-recharge (platform keys; audited).
export const PUT = apiRoute(setAutoRechargeOperation, async ({ db, principal, params, request, body }) => {
  const by = platformChangeContext(principal, request);
  const setting = body.enabled ? { thresholdMicros: body.threshold!, amountMicros: body.amount! } : null;
  await setAutoRecharge(db, params.id, setting, by);
  return autoRechargeAnswer(db, params.id);
});
